#pragma once

#include "chain/Address.h"
#include "indexer/Checkpoint.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "wire/FactorySource.h"

#include <QList>
#include <QString>
#include <QUrl>
#include <cstdint>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

// The blocks an audit covers, both ends included.
struct AuditRange
{
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    std::uint64_t size() const { return to - from + 1; }
};

// What stored data claims and can be held to: a live environment, its one checkpoint and
// the contract set that checkpoint covers (every matching log of those contracts from the
// start block up to the checkpoint is stored).
struct AuditTarget
{
    indexer::Environment environment;
    QString sourceId;
    indexer::Checkpoint checkpoint;
    QList<chain::Address> contracts;
    // Factories whose children the checkpoint covers too (their addresses are in `contracts`).
    QList<wire::FactorySource> factories;
    // Ranges the indexer could not prove complete and nobody has repaired yet.
    QList<indexer::CompletenessAlert> openAlerts;

    // Reads the environment and its checkpoint through the contract's read surface (either
    // store). Throws AuditError: unknown environment (the message lists the known ones),
    // archived, nothing indexed yet, or a checkpoint that does not record its contract set
    // (written before schema v3).
    static AuditTarget load(store::ContractReader& reader, const QString& environmentId);

    // "0x.., 0x.., children of factory 0x.. (PairCreated(...), argument pair)": what the
    // checkpoint covers, as the commands say it.
    QString sourcesText() const;

    // The range to audit: `from` defaults to the checkpoint's start block, `to` to the
    // checkpoint. An empty string when the range is inside what the checkpoint covers,
    // else the one line that says why not (see checkRange).
    QString resolveRange(std::optional<std::uint64_t> from, std::optional<std::uint64_t> to,
                         AuditRange* range) const;

    // The node must serve the environment's chain (chain id and genesis hash): stored data
    // is only comparable with its own chain. Throws AuditError (OtherChain, or
    // NodeUnavailable when it does not answer).
    void checkNode(rpc::EthClient& eth, const QUrl& url, const QString& outcome) const;
};

// The range rule on its own (a pure function): `from`..`to` must lie inside
// [startBlock, checkpoint] and `from` must not be above `to`. Returns the error line or {}.
QString checkRange(std::uint64_t startBlock, std::uint64_t checkpoint,
                   std::optional<std::uint64_t> from, std::optional<std::uint64_t> to,
                   AuditRange* range);

} // namespace forkscope::audit
