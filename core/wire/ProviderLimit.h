#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::rpc {
struct RpcError;
}

namespace forkscope::wire {

// A provider's announced eth_getLogs limit, read from its error message.
struct ProviderLimit
{
    std::optional<std::uint64_t> suggestedFrom; // "try with this block range [a, b]"
    std::optional<std::uint64_t> suggestedTo;
    std::optional<std::uint64_t> maxBlocks; // "maximum block range: 2000", "max is 1k blocks"
};

// Recognises the wordings real providers use ("query returned more than 10000 results",
// "Log response size exceeded ... this block range should work: [0x.., 0x..]",
// "block range too large", "exceed maximum block range: 5000", ...). nullopt when the
// message is not a limit (then the error is a real failure, not a reason to split).
std::optional<ProviderLimit> parseProviderLimit(const QString& message);

// A provider's announced limit on the addresses of one eth_getLogs filter: geth's and
// Erigon's default is 1,000 ("exceed max addresses", "query exceeds the maximum of 1000
// addresses or topics per search position"), some chains allow 10 or 30. nullopt when the
// message is not one; `maxAddresses` when it names the number.
struct AddressLimit
{
    std::optional<std::uint64_t> maxAddresses;
};
std::optional<AddressLimit> parseAddressLimit(const QString& message);

// Whether an eth_getLogs error says the range was too big (a provider's announced limit, or
// a reply over the client's cap): asked again in smaller parts, not node trouble.
bool isRangeLimit(const rpc::RpcError& error);

} // namespace forkscope::wire
