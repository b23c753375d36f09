#pragma once

#include "IndexerConfig.h"
#include "wire/LogFetcher.h"

#include <memory>

namespace forkscope::indexer {

// What a source fetches with (a source IS its contracts and their ABI: docs/design.md, "The
// wire: the receiver owns the cursor"), the same for the SQLite indexer and the processes
// of a shared index: the contracts, the result cap, the completeness proofs, the ABI to
// decode with on the fetch side, and the wire context naming them (the source id and a
// digest of the contracts and the ABI).
// `children`: the source's factories' children as the fetch threads know them (null without
// a factory).
wire::FetchSpec sourceFetchSpec(const IndexerConfig& config,
                                std::shared_ptr<const abi::EventRegistry> registry,
                                std::shared_ptr<wire::ChildDirectory> children = {});

// The ABI named by config.abiPath, or null without one. Throws abi::AbiError naming the file.
std::shared_ptr<const abi::EventRegistry> loadSourceAbi(const IndexerConfig& config);

} // namespace forkscope::indexer
