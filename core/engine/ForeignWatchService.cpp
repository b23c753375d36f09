#include "ForeignWatchService.h"
#include "foreign/ForeignWatcher.h"
#include "store/OpenStore.h"

#include <QDeadlineTimer>
#include <map>

namespace forkscope::engine {

using foreign::ForeignWatchSnapshot;

// Lives on the watch thread only.
struct ForeignWatchService::Loop
{
    struct Watch
    {
        std::unique_ptr<foreign::ForeignWatcher> watcher;
        std::chrono::milliseconds interval{3000};
        QDeadlineTimer due{0};
    };
    std::map<quint64, Watch> watches;
};

ForeignWatchService::ForeignWatchService(QObject* parent)
    : QObject(parent), m_thread(QStringLiteral("forkscope-foreign"))
{
    qRegisterMetaType<ForeignWatchSnapshot>();
    qRegisterMetaType<foreign::ForeignBlockView>();
}

ForeignWatchService::~ForeignWatchService()
{
    requestStop();
    wait();
}

void ForeignWatchService::start()
{
    m_loop = std::make_unique<Loop>();
    m_thread.start([] {}, [this] { return step(); },
                   [this] {
                       for (auto& [id, w] : m_loop->watches)
                           emit snapshotAvailable(
                               w.watcher->stopped(QStringLiteral("the engine stopped")));
                       m_loop->watches.clear();
                       emit stopped();
                   });
}

void ForeignWatchService::requestStop()
{
    m_thread.requestStop();
}

bool ForeignWatchService::wait(std::chrono::milliseconds timeout)
{
    return m_thread.wait(timeout);
}

void ForeignWatchService::watch(quint64 id, const foreign::ForeignWatchSpec& spec, const QUrl& node,
                                const QList<chain::Address>& contracts)
{
    m_thread.post([this, id, spec, node, contracts] {
        const auto refuse = [&](const QString& why) {
            ForeignWatchSnapshot s;
            s.id = id;
            s.state = ForeignWatchSnapshot::State::Refused;
            s.problem = why;
            s.target = store::describeDatabase(spec.target); // never a password
            s.at = QDateTime::currentDateTimeUtc();
            emit snapshotAvailable(s);
        };
        if (const QString why = foreign::validateWatchSpec(spec); !why.isEmpty())
            return refuse(why);
        if (contracts.isEmpty())
            return refuse(QStringLiteral("no contracts to audit: give them, or add them to the "
                                         "lab environment"));
        if (int(m_loop->watches.size()) >= kMaxWatches)
            return refuse(
                QStringLiteral("%1 indexers are watched already: stop one first").arg(kMaxWatches));
        foreign::ForeignWatcher::Options o;
        o.id = id;
        o.target = spec.target;
        o.query = foreign::watchQuery(spec);
        o.contracts = contracts;
        o.node = node;
        o.confirmations = spec.confirmations;
        o.recheckBlocks = spec.recheckBlocks;
        o.stop = m_thread.stopToken();
        Loop::Watch w;
        w.watcher = std::make_unique<foreign::ForeignWatcher>(o);
        w.interval = std::chrono::milliseconds(spec.intervalMs);
        m_loop->watches[id] = std::move(w);
    });
    m_thread.wake();
}

void ForeignWatchService::stopWatching(quint64 id)
{
    m_thread.post([this, id] {
        const auto it = m_loop->watches.find(id);
        if (it == m_loop->watches.end())
            return;
        emit snapshotAvailable(it->second.watcher->stopped(QStringLiteral("stopped by request")));
        m_loop->watches.erase(it);
    });
    m_thread.wake();
}

void ForeignWatchService::requestBlock(quint64 watchId, quint64 block)
{
    m_thread.post([this, watchId, block] {
        const auto it = m_loop->watches.find(watchId);
        if (it != m_loop->watches.end()) {
            emit blockAvailable(it->second.watcher->blockView(block));
            return;
        }
        foreign::ForeignBlockView v;
        v.watchId = watchId;
        v.block = block;
        v.error = QStringLiteral("the watch has ended: watch the indexer again to open its "
                                 "findings");
        emit blockAvailable(v);
    });
    m_thread.wake();
}

int ForeignWatchService::step()
{
    // One due watch per step: commands (a stop) are taken between checks, never after all.
    qint64 next = -1;
    for (auto& [id, w] : m_loop->watches) {
        if (w.due.hasExpired()) {
            emit snapshotAvailable(w.watcher->check());
            w.due.setRemainingTime(w.interval);
            return 0;
        }
        const qint64 left = w.due.remainingTime();
        next = next < 0 ? left : std::min(next, left);
    }
    return int(next);
}

} // namespace forkscope::engine
