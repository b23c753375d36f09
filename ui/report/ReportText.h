#pragma once

#include "report/CheckpointReport.h"

#include <QString>

namespace forkscope::ui::reporttext {

// The PDF report's words for what the database stores, so a reader who does not know the
// schema reads it in a minute: short hashes, amounts in the token's units, kinds and
// counts in words.

// `raw` base units of `contract` in its units ("1,234.5 FSD") when the report has its
// metadata, else the raw number and "base units".
QString amount(const QString& raw, const QString& contract, const report::CheckpointReport& r);
// "transfer removed", "balance changed", "outbox row dropped", "delivered outbox row
// retracted".
QString kindName(const QString& kind);
// "640 transfers removed, 51 balances changed" from a reorg's diff counts ("nothing").
QString undone(const report::ReorgEntry& e);
// One diff item's detail in human units.
QString itemDetail(const report::ReorgDiffItem& d, const report::CheckpointReport& r);
// "1 block", "12 blocks" (n, singular, plural).
QString count(qint64 n, const QString& singular, const QString& plural);
// "1,234" with the locale's grouping.
QString number(qint64 n);

} // namespace forkscope::ui::reporttext
