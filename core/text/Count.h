#pragma once

#include <QString>

namespace forkscope::text {

// A number and its noun, plural-correct, for every message a person reads: "1 block",
// "2 blocks", "0 outbox rows" (never "block(s)").
QString count(qint64 n, const QString& singular, const QString& plural);

} // namespace forkscope::text
