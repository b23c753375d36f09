#include "UnixSignalWatcher.h"

#include <QSocketNotifier>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace forkscope::app {

int UnixSignalWatcher::s_fds[2] = {-1, -1};
volatile std::sig_atomic_t UnixSignalWatcher::s_requested = 0;

UnixSignalWatcher::UnixSignalWatcher(QObject* parent) : QObject(parent)
{
    s_requested = 0;
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, s_fds) != 0)
        return;
    m_notifier = new QSocketNotifier(s_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        unsigned char sig = 0;
        if (::read(s_fds[1], &sig, 1) == 1)
            emit terminationRequested(sig);
    });
    struct sigaction sa
    {
    };
    sa.sa_handler = &UnixSignalWatcher::handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

UnixSignalWatcher::~UnixSignalWatcher()
{
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
}

void UnixSignalWatcher::handler(int sig)
{
    s_requested = 1;
    const unsigned char b = static_cast<unsigned char>(sig);
    [[maybe_unused]] auto n = ::write(s_fds[0], &b, 1);
}

} // namespace forkscope::app
