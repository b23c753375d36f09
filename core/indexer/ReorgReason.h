#pragma once

#include <QString>

namespace forkscope::indexer {

// Why a rollback happened (reorg_events.reason).
namespace reorg_reason {
inline const QString kHashMismatch = QStringLiteral("hash mismatch");     // checkpoint re-check
inline const QString kParentMismatch = QStringLiteral("parent mismatch"); // next block's parent
inline const QString kAbsence = QStringLiteral("absence");                // seed 003, wire issue
inline const QString kRepair = QStringLiteral("repair"); // `forkscope repair`, the Repair button
} // namespace reorg_reason

} // namespace forkscope::indexer
