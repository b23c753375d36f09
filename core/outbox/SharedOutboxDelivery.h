#pragma once

#include "OutboxSink.h"
#include "RetryBackoff.h"
#include "concurrency/StopToken.h"

#include <QString>
#include <functional>
#include <memory>

namespace forkscope::store::pg {
class PgConnection;
}
namespace forkscope::coord {
class SessionLock;
}

namespace forkscope::outbox {

struct SharedDeliveryResult
{
    qint64 delivered = 0; // rows this process had confirmed by the sink
    qint64 failed = 0;    // rows the sink refused for good (4xx), marked failed
    qint64 retries = 0;   // deliveries the sink asked to be retried
    bool led = false;     // this process held the outbox lock at some point
    bool stopped = false;
};

// The outbox of an environment on a shared PostgreSQL database, delivered by whichever of
// several processes holds its "outbox" session lock (coord::SessionLock), in (block_number,
// id) order, at or below the checkpoint (the outbox view's rows). One deliverer at a time
// keeps the order a consumer sees; the lock passes on when its holder dies.
//
// Exactly once per key, as in SQLite (OutboxDispatcher): rows are marked delivered only
// after the sink confirmed them, so a holder killed between the two leaves those rows for
// the next holder, which sends them again with the same event keys. A consumer that
// deduplicates on the key (docs/cli.md, "Outbox delivery") acts on each once.
class SharedOutboxDelivery
{
public:
    SharedOutboxDelivery(QString dbUrl, QString environmentId, qint64 chainId, QString owner,
                         OutboxSink& sink, concurrency::StopTokenPtr stop,
                         RetryBackoff backoff = {});
    ~SharedOutboxDelivery();

    // Returns once no row at or below the checkpoint is left undelivered (by this process
    // or another), or the stop token is set. Throws StoreError on database trouble.
    SharedDeliveryResult run(const std::function<void(const QString&)>& say);

    // One pass while following the head: takes the outbox lock if it is free, delivers what
    // is pending (at most `maxRows`, stopping at a row to retry after its backoff), and
    // returns at once when another process holds the lock.
    void deliverPending(const std::function<void(const QString&)>& say, int maxRows = 500);

    const SharedDeliveryResult& result() const { return m_result; }

private:
    enum class Pass { Idle, Busy, NotHolder };
    Pass pass(const std::function<void(const QString&)>& say, int maxRows);
    qint64 pendingRows();
    void connect();

    QString m_url;
    QString m_env;
    qint64 m_chainId;
    QString m_owner;
    OutboxSink& m_sink;
    concurrency::StopTokenPtr m_stop;
    RetryBackoff m_backoff;
    std::unique_ptr<store::pg::PgConnection> m_db;
    std::unique_ptr<coord::SessionLock> m_lock;
    SharedDeliveryResult m_result;
    int m_streak = 0;
};

} // namespace forkscope::outbox
