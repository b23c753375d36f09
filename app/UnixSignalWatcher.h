#pragma once

#include <QObject>

#include <csignal>

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

    // Whether SIGINT or SIGTERM came since a watcher was made: for work that runs on this
    // thread between rounds and asks, with no event loop turning (the signal is not missed).
    static bool requested() { return s_requested != 0; }

signals:
    void terminationRequested(int signalNumber);

private:
    static void handler(int sig);
    static int s_fds[2];
    static volatile std::sig_atomic_t s_requested;
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace forkscope::app
