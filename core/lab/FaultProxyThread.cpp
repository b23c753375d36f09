#include "FaultProxyThread.h"
#include "DevnetError.h"
#include "FaultProxy.h"

#include <QThread>

namespace forkscope::lab {

FaultProxy* startFaultProxyOn(QThread* thread, const QUrl& upstream, int latencyMs)
{
    auto* proxy = new FaultProxy(upstream);
    proxy->moveToThread(thread);
    QObject::connect(thread, &QThread::finished, proxy, &QObject::deleteLater);
    QString error;
    // On the proxy's thread (its server belongs there); a failure is reported back here,
    // not thrown across the threads.
    QMetaObject::invokeMethod(
        proxy,
        [proxy, latencyMs, &error] {
            try {
                proxy->listen();
                proxy->setLatencyMs(latencyMs);
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            }
        },
        Qt::BlockingQueuedConnection);
    if (!error.isEmpty())
        throw DevnetError(error);
    return proxy;
}

FaultProxyThread::FaultProxyThread(const QUrl& upstream, int latencyMs)
{
    m_thread.start(new QObject); // the thread's anchor; the proxy is deleted when it finishes
    m_url = startFaultProxyOn(m_thread.thread(), upstream, latencyMs)->url();
}

FaultProxyThread::~FaultProxyThread() = default;

} // namespace forkscope::lab
