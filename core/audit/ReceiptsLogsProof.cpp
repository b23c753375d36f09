#include "ReceiptsLogsProof.h"
#include "AuditError.h"
#include "proof/HeaderHash.h"
#include "proof/ReceiptsProof.h"
#include "rpc/EthClient.h"

namespace forkscope::audit {

namespace {
const QString kWithout = QStringLiteral("run without --receipts for the bloom and log-count "
                                        "checks");
}

QList<chain::LogEntry> ReceiptsLogsProof::provenLogs(const chain::BlockHeader& header)
{
    const QString node = m_eth.endpointText();
    const auto untrusted = [&](const QString& what) {
        return AuditError(AuditError::Kind::NodeUntrusted,
                          QStringLiteral("node %1 %2; it cannot serve as the reference, nothing "
                                         "was concluded")
                              .arg(node, what));
    };
    const QString block = QStringLiteral("block %1").arg(header.number);

    // The commitments are the block's only if the header's fields hash to its hash.
    const auto raw = m_eth.blockJsonByHash(header.hash);
    if (!raw)
        throw untrusted(QStringLiteral("answered null for %1 by its hash %2, which it served by "
                                       "number")
                            .arg(block, header.hash.toHex()));
    const proof::HeaderHashCheck check = proof::verifyHeaderHash(*raw, block);
    if (!check.ok) {
        if (check.computed.isZero()) // a field missing or unreadable: not a lie we can prove
            throw AuditError(AuditError::Kind::Unprovable,
                             QStringLiteral("cannot prove %1 by its receipts: %2; %3")
                                 .arg(block, check.problem, kWithout));
        throw untrusted(QStringLiteral("served %1 by its hash: %2").arg(block, check.problem));
    }
    if (check.computed != header.hash || check.header.number != header.number ||
        check.header.logsBloom != header.logsBloom ||
        check.header.receiptsRoot != header.receiptsRoot)
        throw untrusted(QStringLiteral("serves %1 by its hash with other fields than by its "
                                       "number")
                            .arg(block));

    std::optional<chain::ParsedJson> receipts;
    try {
        receipts = m_eth.blockReceiptsJson(header.hash);
    } catch (const rpc::RpcException& e) {
        if (e.error().kind != rpc::RpcError::Kind::Remote)
            throw; // unavailable: the auditor says so
        throw AuditError(AuditError::Kind::NodeUnavailable,
                         QStringLiteral("node %1 does not answer eth_getBlockReceipts for %2 "
                                        "(%3): --receipts needs it; %4")
                             .arg(node, block, e.error().message, kWithout));
    }
    if (!receipts)
        throw untrusted(
            QStringLiteral("answered null for eth_getBlockReceipts of %1, a block it serves")
                .arg(block));
    const proof::ReceiptsVerdict v = proof::verifyReceipts(header, *receipts);
    if (v.ok)
        return v.logs;
    if (v.failure == proof::ReceiptsVerdict::Failure::Unsupported)
        throw AuditError(AuditError::Kind::Unprovable,
                         QStringLiteral("cannot prove %1 by its receipts: %2; %3")
                             .arg(block, v.problem, kWithout));
    throw untrusted(QStringLiteral("sent %1").arg(v.problem));
}

} // namespace forkscope::audit
