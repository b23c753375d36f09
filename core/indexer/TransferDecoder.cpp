#include "TransferDecoder.h"
#include "chain/Keccak.h"

namespace forkscope::indexer {

namespace {
std::optional<chain::Address> addressFromTopic(const chain::Hash32& topic)
{
    const auto& b = topic.bytes();
    for (int i = 0; i < 12; ++i)
        if (b[i] != 0)
            return std::nullopt;
    return chain::Address::fromRaw(std::span(b).subspan<12>());
}
} // namespace

const chain::Hash32& transferTopic()
{
    static const chain::Hash32 t =
        chain::eventTopic(QStringLiteral("Transfer(address,address,uint256)"));
    return t;
}

TransferDecodeResult decodeTransfer(const chain::LogEntry& log)
{
    if (log.topics.isEmpty() || log.topics.front() != transferTopic())
        return NotATransfer{};
    if (log.topics.size() != 3)
        return TransferDecodeFailure{
            QStringLiteral("Transfer log with %1 topics (ERC-20 has 3)").arg(log.topics.size())};
    if (log.data.size() != 32)
        return TransferDecodeFailure{
            QStringLiteral("Transfer log with %1 data bytes (ERC-20 has 32)").arg(log.data.size())};
    const auto from = addressFromTopic(log.topics[1]);
    const auto to = addressFromTopic(log.topics[2]);
    if (!from || !to)
        return TransferDecodeFailure{QStringLiteral("Transfer topic is not a left-padded address")};
    return Transfer{log.address, *from, *to,
                    chain::u256::fromBigEndian(log.data, QStringLiteral("Transfer.value"))};
}

} // namespace forkscope::indexer
