#pragma once

#include "chain/BlockHeader.h"

#include <QList>
#include <QString>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::audit {

// Throws AuditError (NodeUntrusted): node `eth` `what`, so nothing can be concluded from it;
// `rerun` says what to run again, since a reorg during the run looks the same.
[[noreturn]] void throwUntrustedNode(const rpc::EthClient& eth, const QString& what,
                                     const QString& rerun);

// The headers of consecutive blocks as a reference node serves them, in batches: each the
// block asked for, each linking by parentHash to the one before, across calls too, so a
// whole walk is one chain. What `verify` and `audit` stand on.
class LinkedHeaders
{
public:
    // `rerun`: as for throwUntrustedNode; `nullAdvice`: what to do when the node has no
    // block at a height asked (it lags, or lost it), after "node N answered null for block B".
    LinkedHeaders(rpc::EthClient& eth, QString rerun, QString nullAdvice);

    // Blocks a..b; throws AuditError (NodeUnavailable for a missing block, NodeUntrusted for
    // a wrong or unlinked one).
    QList<chain::BlockHeader> fetch(std::uint64_t a, std::uint64_t b);
    // The next fetch starts a new chain (a new walk).
    void reset() { m_last.reset(); }

private:
    rpc::EthClient& m_eth;
    QString m_rerun;
    QString m_nullAdvice;
    std::optional<chain::Hash32> m_last; // the node's block below the next fetch
};

} // namespace forkscope::audit
