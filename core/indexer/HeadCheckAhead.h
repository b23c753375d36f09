#pragma once

#include "Checkpoint.h"
#include "chain/BlockHeader.h"
#include "concurrency/StopToken.h"
#include "concurrency/WorkerThread.h"
#include "rpc/EthClient.h"

#include <QUrl>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

namespace forkscope::indexer {

// The indexer's per-round check ("is the checkpoint still on the node's chain, and where is
// the head?"), asked one round early during a backfill, on a thread of its own.
//
// Why: every round begins with that check, a round trip the committing thread waited for
// between two commits: a millisecond or two on a local anvil, a whole network round trip
// on a remote node (a third of a round 20 ms away: bench/README.md, --latency-ms). During a
// backfill the block the next round checks is known before the commit that makes it the
// checkpoint (the verified batch's last header), so the question is sent just before that
// commit and answered while it runs. It has its own thread and JSON-RPC client because Qt
// sends a request only from its thread's event loop, which the committing thread does not
// run while it commits.
//
// What it does not change: an answer is taken only for exactly the checkpoint it was asked
// about (number and hash); a checkpoint moved any other way (a rollback, another writer, a
// failed commit) gets the round trip as before. The answer is older by one commit, as the
// batch being committed already is: a reorg in between is seen by the next round, through
// this check or the next batch's parent link, and rolled back there. At the head the check
// stays fresh, asked when it is needed: that is where reorgs happen.
class HeadCheckAhead
{
public:
    HeadCheckAhead(QUrl endpoint, std::chrono::milliseconds rpcTimeout,
                   concurrency::StopTokenPtr stop);
    ~HeadCheckAhead(); // stops the thread; an unanswered question is dropped
    HeadCheckAhead(const HeadCheckAhead&) = delete;
    HeadCheckAhead& operator=(const HeadCheckAhead&) = delete;

    // Sends the check for the block a commit is about to make the checkpoint (an earlier
    // question still open is forgotten).
    void ask(std::uint64_t number, const chain::Hash32& hash);
    // The answer to the question asked for exactly `cp`, waiting for it if need be; nullopt
    // when none was asked (a question about another block is forgotten). Throws
    // rpc::RpcException as EthClient::headAndBlock does: the node's error, a timeout, or
    // Cancelled when the stop token is set.
    std::optional<rpc::HeadCheck> takeFor(const Checkpoint& cp);

    struct Mailbox; // the worker's answers, tagged with the question's ticket

private:
    const QUrl m_endpoint;
    const std::chrono::milliseconds m_timeout;
    const concurrency::StopTokenPtr m_stop;
    std::shared_ptr<Mailbox> m_mailbox;
    concurrency::WorkerThread m_thread{QStringLiteral("forkscope-headcheck")};
    QObject* m_worker = nullptr; // lives on m_thread
    quint64 m_lastTicket = 0;    // tickets only grow
    quint64 m_ticket = 0;        // the open question's, 0 when none is open
    std::uint64_t m_number = 0;
    chain::Hash32 m_hash;
};

} // namespace forkscope::indexer
