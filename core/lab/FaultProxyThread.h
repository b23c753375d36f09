#pragma once

#include "concurrency/WorkerThread.h"

#include <QUrl>

class QThread;

namespace forkscope::lab {

class FaultProxy;

// A new FaultProxy in front of `upstream` that serves on `thread` (running its event loop):
// moved there, listening there with `latencyMs` added to every reply, and deleted when that
// thread finishes. For callers whose own thread blocks while the proxy must serve (the lab's
// nodes and its second writer, an in-process indexer waiting for its fetch threads, a
// benchmark polling the process it times). Throws DevnetError as FaultProxy::listen does.
FaultProxy* startFaultProxyOn(QThread* thread, const QUrl& upstream, int latencyMs = 0);

// One such proxy on a thread of its own: a node a round trip away.
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
