#pragma once

#include <QObject>

class QSocketNotifier;

namespace forkscope::app {

// Turns SIGINT/SIGTERM into a Qt signal (self-pipe: the handler only writes a byte), so
// Ctrl-C and `kill` shut the engine down cleanly, stopping workers and the managed anvil.
class UnixSignalWatcher : public QObject
{
    Q_OBJECT
public:
    explicit UnixSignalWatcher(QObject* parent = nullptr);
    ~UnixSignalWatcher() override;

signals:
    void terminationRequested(int signalNumber);

private:
    static void handler(int sig);
    static int s_fds[2];
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace forkscope::app
