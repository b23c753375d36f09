#include "StoppablePause.h"

#include <QCoreApplication>
#include <QThread>

namespace forkscope::concurrency {

void pauseUnlessStopped(std::chrono::milliseconds duration, const StopTokenPtr& stop)
{
    for (auto left = duration.count(); left > 0; left -= 25) {
        QCoreApplication::processEvents();
        if (stop && stop->stopRequested())
            return;
        QThread::msleep(std::uint64_t(std::min<qint64>(25, left)));
    }
    QCoreApplication::processEvents();
}

} // namespace forkscope::concurrency
