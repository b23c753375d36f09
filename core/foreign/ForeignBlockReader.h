#pragma once

#include "ForeignBlockView.h"
#include "chain/Address.h"

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::foreign {

class ForeignTable;

// The rows `query` yields for `block` and the node's Transfers of `contracts` there. The
// node's logs are read by the block's hash and must be the block's every log (their bloom
// recomputed is the header's), or the view says the node cannot be believed. Throws
// ForeignError for the table, audit::AuditError and rpc::RpcException for the node.
ForeignBlockView readForeignBlock(ForeignTable& table, const QString& query, rpc::EthClient& eth,
                                  const QList<chain::Address>& contracts, std::uint64_t block);

} // namespace forkscope::foreign
