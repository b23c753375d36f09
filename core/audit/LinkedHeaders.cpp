#include "LinkedHeaders.h"

#include "AuditError.h"
#include "rpc/EthClient.h"

namespace forkscope::audit {

namespace {
constexpr std::uint64_t kHeadersPerBatch = 100;
} // namespace

void throwUntrustedNode(const rpc::EthClient& eth, const QString& what, const QString& rerun)
{
    throw AuditError(AuditError::Kind::NodeUntrusted,
                     QStringLiteral("node %1 %2; it cannot serve as the reference, nothing "
                                    "was concluded (%3)")
                         .arg(eth.endpointText(), what, rerun));
}

LinkedHeaders::LinkedHeaders(rpc::EthClient& eth, QString rerun, QString nullAdvice)
    : m_eth(eth), m_rerun(std::move(rerun)), m_nullAdvice(std::move(nullAdvice))
{
}

QList<chain::BlockHeader> LinkedHeaders::fetch(std::uint64_t a, std::uint64_t b)
{
    QList<chain::BlockHeader> out;
    out.reserve(qsizetype(b - a + 1));
    for (std::uint64_t s = a; s <= b; s += kHeadersPerBatch) {
        const std::uint64_t e = std::min(b, s + kHeadersPerBatch - 1);
        const auto headers = m_eth.blocksByNumber(s, e);
        if (std::uint64_t(headers.size()) != e - s + 1)
            throwUntrustedNode(m_eth,
                               QStringLiteral("answered %1 headers for blocks %2..%3")
                                   .arg(headers.size())
                                   .arg(s)
                                   .arg(e),
                               m_rerun);
        for (qsizetype i = 0; i < headers.size(); ++i) {
            const std::uint64_t n = s + std::uint64_t(i);
            if (!headers[i])
                throw AuditError(AuditError::Kind::NodeUnavailable,
                                 QStringLiteral("node %1 answered null for block %2%3")
                                     .arg(m_eth.endpointText())
                                     .arg(n)
                                     .arg(m_nullAdvice));
            const chain::BlockHeader& h = *headers[i];
            if (h.number != n)
                throwUntrustedNode(m_eth,
                                   QStringLiteral("answered block %1 when asked for block %2")
                                       .arg(h.number)
                                       .arg(n),
                                   m_rerun);
            if (m_last && h.parentHash != *m_last)
                throwUntrustedNode(m_eth,
                                   QStringLiteral("serves block %1 with parentHash %2, but its "
                                                  "block %3 is %4: headers that do not link")
                                       .arg(n)
                                       .arg(h.parentHash.toHex())
                                       .arg(n - 1)
                                       .arg(m_last->toHex()),
                                   m_rerun);
            m_last = h.hash;
            out.append(h);
        }
    }
    return out;
}

} // namespace forkscope::audit
