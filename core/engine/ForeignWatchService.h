#pragma once

#include "chain/Address.h"
#include "concurrency/LoopThread.h"
#include "foreign/ForeignBlockView.h"
#include "foreign/ForeignWatchSnapshot.h"
#include "foreign/ForeignWatchSpec.h"

#include <QObject>
#include <QUrl>
#include <chrono>
#include <memory>

namespace forkscope::engine {

// The foreign indexers the window watches ("Watch another indexer..."), each a
// foreign::ForeignWatcher checked every spec.intervalMs on a LoopThread of its own: a
// foreign database that answers slowly never holds up the indexer, the lab or the reads.
// Each check's snapshot goes out by signal as a value; a watch ends with a Stopped one.
class ForeignWatchService : public QObject
{
    Q_OBJECT
public:
    // Watches at once; a further one is refused with a snapshot saying so.
    static constexpr int kMaxWatches = 8;

    explicit ForeignWatchService(QObject* parent = nullptr);
    ~ForeignWatchService() override;

    void start();
    void requestStop();
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    concurrency::LoopThread::Stats stats() const { return m_thread.stats(); }

    // Commands, from any thread. `spec` must pass foreign::validateWatchSpec; `node` is the
    // reference and `contracts` the tokens audited.
    void watch(quint64 id, const forkscope::foreign::ForeignWatchSpec& spec, const QUrl& node,
               const QList<chain::Address>& contracts);
    void stopWatching(quint64 id);
    // Answered by blockAvailable, with an error when `watchId` is not watched.
    void requestBlock(quint64 watchId, quint64 block);

signals:
    void snapshotAvailable(const forkscope::foreign::ForeignWatchSnapshot& snapshot);
    void blockAvailable(const forkscope::foreign::ForeignBlockView& view);
    void stopped();

private:
    struct Loop;
    int step();

    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
};

} // namespace forkscope::engine
