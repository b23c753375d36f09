#pragma once

#include "BlockLogsProof.h"

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::audit {

// `forkscope verify --receipts`: a block's logs proven by its receipts. The header, fetched
// by its hash, must hash to that hash (proof::verifyHeaderHash), so its logsBloom and
// receiptsRoot are the block's own; then eth_getBlockReceipts must rebuild that
// receiptsRoot and bloom (proof::verifyReceipts). What it returns is every log of the block,
// exactly: a node cannot omit, add or alter one without failing the root.
class ReceiptsLogsProof : public BlockLogsProof
{
public:
    explicit ReceiptsLogsProof(rpc::EthClient& eth) : m_eth(eth) {}

    QString name() const override { return QStringLiteral("receipts root"); }
    // AuditError: NodeUntrusted when the node's header or receipts do not prove the block,
    // Unprovable when the block uses a header layout or receipt type this build cannot
    // encode, NodeUnavailable when the node does not serve eth_getBlockReceipts.
    QList<chain::LogEntry> provenLogs(const chain::BlockHeader& header) override;

private:
    rpc::EthClient& m_eth;
};

} // namespace forkscope::audit
