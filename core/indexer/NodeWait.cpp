#include "NodeWait.h"
#include "concurrency/StoppablePause.h"
#include "rpc/RpcError.h"

namespace forkscope::indexer {

bool waitForNode(const std::function<void()>& attempt, const QString& what,
                 const std::function<void(const QString&)>& say,
                 const concurrency::StopTokenPtr& stop)
{
    for (int streak = 1;; ++streak) {
        if (stop && stop->stopRequested())
            return false;
        try {
            attempt();
            return true;
        } catch (const rpc::RpcException& e) {
            if (stop && stop->stopRequested())
                return false;
            if (e.error().kind == rpc::RpcError::Kind::Cancelled)
                throw;
            const std::chrono::milliseconds wait = nodeBackoff(streak);
            say(QStringLiteral("%1: %2; %3: next try in %4 ms")
                    .arg(what, QString::fromUtf8(e.what()),
                         e.error().isUnavailability()
                             ? QStringLiteral("the node is unavailable")
                             : QStringLiteral("the node's answer was not usable"))
                    .arg(wait.count()));
            concurrency::pauseUnlessStopped(wait, stop);
        }
    }
}

} // namespace forkscope::indexer
