#pragma once

#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QString>

namespace forkscope::audit {

// Where a stronger check than the bloom plugs into StoredDataAuditor: a proof of a block's
// complete log set against its header. `forkscope verify --receipts` passes
// ReceiptsLogsProof (the receipts trie rebuilt and checked against the header's
// receiptsRoot).
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
