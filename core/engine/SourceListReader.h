#pragma once

#include "SourceList.h"

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::engine {

// The sources of `environmentId` (on `chainId`) as its checkpoint rows record them, with the
// factories' children (at most `maxChildren`), read through the contract's surface in one
// snapshot on either store. An environment with nothing indexed has no sources. Throws
// StoreError when the store cannot be read, wire::FactorySourceError when a checkpoint names
// a factory this build cannot read.
SourceList readSourceList(store::ContractReader& reader, const QString& environmentId,
                          quint64 chainId, int maxChildren = SourceList::kMaxChildren);

} // namespace forkscope::engine
