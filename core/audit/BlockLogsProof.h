#pragma once

#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QString>

namespace forkscope::audit {

// Where a stronger check than the bloom plugs into StoredDataAuditor: a proof of a block's
// complete log set against its header. `forkscope verify --receipts` is meant to pass one
// that rebuilds the receipts trie from eth_getBlockReceipts and checks it against the
// header's receiptsRoot (core/proof); until that module is in the build the flag is refused,
// never run under its name with a weaker check.
class BlockLogsProof
{
public:
    virtual ~BlockLogsProof() = default;
    // What the result line calls it ("receipts root").
    virtual QString name() const = 0;
    // Every log of the block (all addresses), proven against `header`. Throws AuditError
    // (NodeUntrusted) when the node's answer does not prove the header's commitment, and
    // rpc::RpcException when the node does not answer.
    virtual QList<chain::LogEntry> provenLogs(const chain::BlockHeader& header) = 0;
};

} // namespace forkscope::audit
