#pragma once

#include "concurrency/WorkerThread.h"

#include <QUrl>

namespace forkscope::lab {

class FaultProxy;

// A FaultProxy in front of `upstream` that answers on a thread of its own, every reply
// delayed by `latencyMs`: a node a round trip away. For a caller whose own thread blocks
// while the proxy must serve (an in-process indexer waiting for its fetch threads, a
// benchmark polling the process it times), so the proxy cannot share that thread's loop.
class FaultProxyThread
{
public:
    // Listening when it returns; throws DevnetError as FaultProxy::listen does.
    FaultProxyThread(const QUrl& upstream, int latencyMs);
    ~FaultProxyThread(); // stops the thread; the proxy is deleted on it
    FaultProxyThread(const FaultProxyThread&) = delete;
    FaultProxyThread& operator=(const FaultProxyThread&) = delete;

    const QUrl& url() const { return m_url; }

private:
    concurrency::WorkerThread m_thread{QStringLiteral("forkscope-proxy")};
    QUrl m_url;
};

} // namespace forkscope::lab
