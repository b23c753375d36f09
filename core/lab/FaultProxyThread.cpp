#include "FaultProxyThread.h"
#include "DevnetError.h"
#include "FaultProxy.h"

namespace forkscope::lab {

FaultProxyThread::FaultProxyThread(const QUrl& upstream, int latencyMs)
{
    FaultProxy* proxy = m_thread.start(new FaultProxy(upstream));
    QString error;
    // On the proxy's thread (its server belongs there); a failure is reported back here,
    // not thrown across the threads.
    QMetaObject::invokeMethod(
        proxy,
        [&] {
            try {
                proxy->listen();
                proxy->setLatencyMs(latencyMs);
                m_url = proxy->url();
            } catch (const DevnetError& e) {
                error = e.message();
            }
        },
        Qt::BlockingQueuedConnection);
    if (!error.isEmpty())
        throw DevnetError(error);
}

FaultProxyThread::~FaultProxyThread() = default;

} // namespace forkscope::lab
