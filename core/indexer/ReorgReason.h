#pragma once

#include <QString>

namespace forkscope::indexer {

// Why a rollback happened (reorg_events.reason).
namespace reorg_reason {
inline const QString kHashMismatch = QStringLiteral("hash mismatch");     // checkpoint re-check
inline const QString kParentMismatch = QStringLiteral("parent mismatch"); // next block's parent
// Stored logs the node no longer returns, contradicted by a header (docs/design.md, "Absence is
// loud and corroborated").
inline const QString kAbsence = QStringLiteral("absence");
inline const QString kRepair = QStringLiteral("repair"); // `forkscope repair`, the Repair button
} // namespace reorg_reason

} // namespace forkscope::indexer
