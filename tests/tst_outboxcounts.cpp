// The outbox's pending count while delivery stores rows. A pending Transfer's row is either
// rendered from its log or stored (the deliverer stores a round's rows just before it sends
// them), so every count adds the stored rows to the rendered ones. Read in two statements, a
// round committing between them moves rows from the part not yet read to the part already
// read: the count misses them, `--exit-when-synced` sees 0 pending and exits with rows never
// sent. Each count here must be one snapshot: it never changes while only the split does.
// The backend is a data row; the deliverer runs on its own connection, as in the app.
#include "IndexStoreLab.h"
#include "StoreRows.h"
#include "outbox/OutboxQueue.h"
#include "store/OpenStore.h"

#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>

using namespace forkscope;
using namespace forkscope::test;

namespace {

constexpr int kTransfers = 200;
constexpr std::uint64_t kSafe = 2;

enum class Count { ExitGate, DeliveryQueue, StatusBar };

} // namespace

Q_DECLARE_METATYPE(Count)

class TestOutboxCounts : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_stores.startCluster(); }
    void pendingCountIsOneSnapshotWhileDeliveryStoresRows_data();
    void pendingCountIsOneSnapshotWhileDeliveryStoresRows();

private:
    QTemporaryDir m_dir;
    StoreRows m_stores;
};

void TestOutboxCounts::pendingCountIsOneSnapshotWhileDeliveryStoresRows_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<Count>("count");
    for (const QString& b : StoreRows::backends()) {
        const QByteArray n = b.toLatin1();
        QTest::addRow("%s, --exit-when-synced", n.constData()) << b << Count::ExitGate;
        QTest::addRow("%s, the delivery queue", n.constData()) << b << Count::DeliveryQueue;
        QTest::addRow("%s, the status bar", n.constData()) << b << Count::StatusBar;
    }
}

void TestOutboxCounts::pendingCountIsOneSnapshotWhileDeliveryStoresRows()
{
    QFETCH(QString, backend);
    QFETCH(Count, count);
    const QString fresh = m_stores.freshDatabase(backend);
    IndexStoreLab lab(
        fresh.isEmpty()
            ? m_dir.filePath(QStringLiteral("counts-%1.sqlite").arg(QTest::currentDataTag()))
            : fresh);
    QList<int> values;
    for (int i = 0; i < kTransfers; ++i)
        values << i + 1;
    lab.commit(branchOf("A", values)); // every Transfer in block 2, all pending, none stored

    // The counts the exit gate, the delivery queue and the status bar read, each on the
    // connection it has in the app (the queue's own, the store's for the other two).
    std::unique_ptr<outbox::OutboxQueue> countingQueue;
    const auto counted = [&]() -> qint64 {
        switch (count) {
        case Count::ExitGate:
            return lab.index->outboxPendingAtOrBelow(kSafe);
        case Count::StatusBar:
            return lab.index->reader().outboxTally(kEnv, qint64(kChain)).pending;
        case Count::DeliveryQueue:
            break;
        }
        if (!countingQueue)
            countingQueue = store::openOutboxQueue(lab.db, kEnv, kChain);
        return countingQueue->pendingAtOrBelow(kSafe);
    };
    QCOMPARE(counted(), kTransfers);

    // Rounds of 1, 2, 3, ... rows: each stores one more row (the ones before it are stored
    // and still pending), in its own transaction, on the deliverer's own connection. Nothing
    // is delivered, so the count stays put.
    std::atomic<bool> done = false;
    QString deliveryError;
    std::unique_ptr<QThread> delivery(QThread::create([&] {
        try {
            const auto queue = store::openOutboxQueue(lab.db, kEnv, kChain);
            for (int limit = 1; limit <= kTransfers; ++limit) {
                std::optional<outbox::OutboxRow> orphan;
                if (queue->next(kSafe, limit, &orphan).size() != limit) {
                    deliveryError = QStringLiteral("round %1 got a short page").arg(limit);
                    break;
                }
            }
        } catch (const std::exception& e) {
            deliveryError = QString::fromUtf8(e.what());
        }
        done = true;
    }));
    delivery->start();
    int reads = 0;
    QList<qint64> wrong;
    while (!done) {
        const qint64 n = counted();
        ++reads;
        if (n != kTransfers && wrong.size() < 10)
            wrong << n;
    }
    delivery->wait();
    QVERIFY2(deliveryError.isEmpty(), qPrintable(deliveryError));
    QVERIFY2(
        wrong.isEmpty(),
        qPrintable(
            QStringLiteral("%1 reads, %2 pending, read as %3").arg(reads).arg(kTransfers).arg([&] {
                QStringList s;
                for (qint64 w : wrong)
                    s << QString::number(w);
                return s.join(", ");
            }())));
    // And every row is stored now, none rendered: the count is the same.
    QCOMPARE(lab.rows("SELECT count(*) FROM outbox_store"),
             QStringList{QString::number(kTransfers)});
    QCOMPARE(counted(), kTransfers);
}

QTEST_GUILESS_MAIN(TestOutboxCounts)
#include "tst_outboxcounts.moc"
