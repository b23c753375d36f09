#pragma once

#include <QString>
#include <QUrl>
#include <cstdint>

namespace forkscope::app {

// `forkscope repair --db postgresql://...`: rolls a shared index back to block from - 1 in
// one transaction (a reorg_events row of reason "repair") and indexes it again from `rpc`
// up to the checkpoint it had, as the head lock's holder (indexer::SharedHeadFollower).
// `abiPath` must name the ABI the environment was indexed with (none if it had none).
int runSharedRepair(const QString& url, const QString& environmentId, const QUrl& rpc,
                    std::uint64_t from, const QString& abiPath);

} // namespace forkscope::app
