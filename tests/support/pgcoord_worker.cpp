// A stand-in indexer process for tst_pgcoord: it coordinates through the real coord/
// classes on a real PostgreSQL, and writes one row per block of each range it finishes,
// in the transaction that marks the range done. A separate process, so the suite can kill
// it with -9 mid-range, stop it past its lease, and run several at once.
//
//   pgcoord_worker backfill URL ENV OWNER FROM TO RANGE BLOCK_MS LEASE_MS [--no-renew]
//   pgcoord_worker follow URL ENV OWNER POLL_MS
//
// It prints one line per step (claimed/done/lost/checkpoint/finished, leader/standby) and
// exits 0 when every range is done, 2 on bad arguments, 3 on a failed range or an error.
#include "chain/Keccak.h"
#include "coord/BackfillClaims.h"
#include "coord/CoordinationErrors.h"
#include "coord/CoordinationSchema.h"
#include "coord/PrefixCheckpoint.h"
#include "coord/SessionLock.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgError.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <cstdio>

using namespace forkscope;
using store::pg::PgConnection;

namespace {

// The synthetic chain: block N's hash is keccak("block" N); block -1's is that of "-1".
chain::Hash32 blockHash(qint64 n)
{
    return chain::keccak256("block" + QByteArray::number(n));
}

void say(const QString& line)
{
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

int backfill(const QStringList& a, bool renew)
{
    const QString url = a[0], env = a[1], owner = a[2];
    const qint64 from = a[3].toLongLong(), to = a[4].toLongLong(), range = a[5].toLongLong();
    const int blockMs = a[6].toInt();
    const std::chrono::milliseconds lease(a[7].toInt());
    auto db = PgConnection::open(url);
    coord::ensureCoordinationSchema(*db);
    coord::BackfillClaims claims(*db, env, 31337, owner, lease);
    coord::PrefixCheckpoint checkpoint(*db, env, 31337, QStringLiteral("default"));
    claims.plan(from, to, range);
    checkpoint.initialise(from - 1, blockHash(from - 1));
    for (;;) {
        const std::optional<coord::RangeClaim> c = claims.claim();
        if (!c) {
            const coord::RangeCounts n = claims.counts();
            if (n.failed > 0) {
                say(QStringLiteral("failed ranges %1").arg(n.failed));
                return 3;
            }
            if (n.allDone()) {
                say(QStringLiteral("finished checkpoint %1").arg(checkpoint.advance().blockNumber));
                return 0;
            }
            QThread::msleep(50); // others' ranges still running: one may need taking over
            continue;
        }
        say(QStringLiteral("claimed %1 %2 attempt %3 from %4")
                .arg(c->fromBlock)
                .arg(c->toBlock)
                .arg(c->attempts)
                .arg(c->takenOverFrom.isEmpty() ? QStringLiteral("-") : c->takenOverFrom));
        QElapsedTimer sinceRenew;
        sinceRenew.start();
        bool lost = false;
        for (qint64 b = c->fromBlock; b <= c->toBlock && !lost; ++b) {
            QThread::msleep(std::uint64_t(blockMs)); // "fetching" the block
            if (renew && sinceRenew.elapsed() > lease.count() / 3) {
                lost = !claims.renew(*c);
                sinceRenew.restart();
            }
        }
        if (lost) {
            say(QStringLiteral("lost %1 %2 at renewal").arg(c->fromBlock).arg(c->toBlock));
            continue;
        }
        db->begin();
        try {
            for (qint64 b = c->fromBlock; b <= c->toBlock; ++b)
                db->run("worker_row",
                        "INSERT INTO backfill_rows (environment_id, block_number, block_hash, "
                        "owner) VALUES ($1, $2, $3, $4)",
                        {env.toUtf8(), QByteArray::number(b),
                         PgConnection::byteaParam(blockHash(b).toByteArray()), owner.toUtf8()});
            claims.finish(*c, blockHash(c->fromBlock - 1), blockHash(c->toBlock));
            db->commit();
        } catch (const coord::LeaseLostError& e) {
            db->rollback();
            say(QStringLiteral("lost %1 %2 at finish: %3")
                    .arg(c->fromBlock)
                    .arg(c->toBlock)
                    .arg(e.message()));
            continue;
        }
        say(QStringLiteral("done %1 %2").arg(c->fromBlock).arg(c->toBlock));
        say(QStringLiteral("checkpoint %1").arg(checkpoint.advance().blockNumber));
    }
}

int follow(const QStringList& a)
{
    const QString url = a[0], env = a[1], owner = a[2];
    const int pollMs = a[3].toInt();
    auto db = PgConnection::open(url);
    coord::SessionLock lock(*db, QStringLiteral("head"), env, 31337);
    say(QStringLiteral("standby %1").arg(owner));
    for (;;) {
        if (lock.held()) {
            if (!lock.stillHeld())
                say(QStringLiteral("lost-lead %1").arg(owner));
        } else if (lock.tryAcquire()) {
            say(QStringLiteral("leader %1").arg(owner));
        }
        QThread::msleep(std::uint64_t(pollMs));
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const bool noRenew = args.removeAll(QStringLiteral("--no-renew")) > 0;
    const QString mode = args.value(0);
    if (!args.isEmpty())
        args.removeFirst();
    try {
        if (mode == QLatin1String("backfill") && args.size() == 8)
            return backfill(args, !noRenew);
        if (mode == QLatin1String("follow") && args.size() == 4)
            return follow(args);
    } catch (const std::exception& e) {
        say(QStringLiteral("error %1").arg(QString::fromUtf8(e.what())));
        return 3;
    }
    std::fprintf(stderr, "usage: pgcoord_worker backfill URL ENV OWNER FROM TO RANGE BLOCK_MS "
                         "LEASE_MS [--no-renew] | follow URL ENV OWNER POLL_MS\n");
    return 2;
}
