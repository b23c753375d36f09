// The Fork tree tab on the real lab under a storm of reorgs, on either store: seeded random
// reorgs injected back to back through the app's engine on its managed anvil. The indexer
// may fold several injections into one rollback; whatever it recorded, the tree the engine
// serves and the tab shows has a branch per rollback, forking where the rollback forked and
// as deep; a click on one of its orphaned blocks (on the canvas, as a user clicks) lists the
// rows the reorg diff says that rollback removed from that block, and so does the engine's
// answer for each of its other blocks.
#include "BottomDrawer.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "forktree/ForkBlockRowsModel.h"
#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreeView.h"
#include "lab/PgLab.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QLabel>
#include <QMap>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QtTest>

using namespace forkscope;
using V = engine::InvariantVerdict::State;

class TestForkTreeLab : public QObject
{
    Q_OBJECT
private slots:
    void everyRollbackOfAStormIsABranch_data();
    void everyRollbackOfAStormIsABranch();

private:
    lab::PgLab m_cluster; // started by the first PostgreSQL row
};

namespace {

// A removed Transfer as both sides name it: the diff's item and the clicked block's row.
QString stormRowKey(const QString& tx, qint64 logIndex, const QString& contract,
                    const QString& from, const QString& to, const QString& value, bool back)
{
    return QStringLiteral("%1/%2/%3/%4/%5/%6/%7")
        .arg(tx.toLower())
        .arg(logIndex)
        .arg(contract.toLower(), from.toLower(), to.toLower(), value)
        .arg(back ? "back" : "gone");
}

// The storm's run: the lab, what was injected, what the engine recorded.
struct Storm
{
    test::Lab& lab;
    quint64 head = 0;           // the node's head: a reorg replaces blocks, the height stays
    QSet<qint64> injectedForks; // head - depth of each injection
    int injected = 0;           // injections the lab said it made
    QStringList failures;       // injections the lab refused or failed
    QMap<qint64, engine::ReorgMark> recorded; // every rollback any status listed, by id

    // Until the lab has made (or refused) `count` injections; returns at once when it has.
    bool waitForInjection(int count, int timeoutMs) const
    {
        QDeadlineTimer deadline(timeoutMs);
        while (injected + failures.size() < count && !deadline.hasExpired())
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        return injected + failures.size() >= count;
    }

    explicit Storm(test::Lab& l) : lab(l)
    {
        QObject::connect(&lab.host, &engine::EngineHost::logMessage, &lab.host,
                         [this](const QString&, const QString& text) {
                             if (text.startsWith(QLatin1String("lab: reorg of depth ")))
                                 ++injected;
                             else if (text.startsWith(QLatin1String("inject reorg depth ")))
                                 failures << text;
                         });
        // A status lists the last 200 rollbacks: the union over every status is all of them.
        QObject::connect(&lab.host, &engine::EngineHost::statusAvailable, &lab.host,
                         [this](const engine::EngineStatus& s) {
                             for (const engine::ReorgMark& r : s.recentReorgs)
                                 recorded.insert(r.id, r);
                         });
    }
};

// The tree of the whole chain as the engine serves it, and as the tab shows it: a branch per
// recorded rollback, off the block it forked at, as deep as the rollback.
void checkTheTree(Storm& storm, ui::ForkTreeView* view, forktree::ForkTreeWindow& window)
{
    QSignalSpy windows(&storm.lab.host, &engine::EngineHost::forkTreeAvailable);
    storm.lab.host.requestForkTree({0, storm.head}); // what "Go to reorg" asks when needed
    QTRY_VERIFY_WITH_TIMEOUT(
        !windows.isEmpty() &&
            windows.last().at(0).value<forktree::ForkTreeSnapshot>().window.fromBlock == 0,
        15000);
    window = windows.last().at(0).value<forktree::ForkTreeSnapshot>().window;
    QVERIFY(!window.truncated);
    QCOMPARE(window.checkpoint, storm.head);
    QCOMPARE(window.reorgCount, qint64(storm.recorded.size()));
    QCOMPARE(qint64(window.branches.size()), qint64(storm.recorded.size()));
    // Where a branch may fork: a spine block, or a block a later rollback removed.
    QHash<chain::Hash32, quint64> forkable;
    for (const forktree::TreeBlock& b : std::as_const(window.canonical))
        forkable.insert(b.hash, b.number);
    QHash<qint64, const forktree::OrphanBranch*> byReorg;
    for (const forktree::OrphanBranch& b : std::as_const(window.branches)) {
        byReorg.insert(b.reorgId, &b);
        for (const forktree::TreeBlock& t : b.blocks)
            forkable.insert(t.hash, t.number);
    }
    for (const engine::ReorgMark& r : std::as_const(storm.recorded)) {
        const forktree::OrphanBranch* b = byReorg.value(r.id);
        QVERIFY2(b, qPrintable(QString("no branch of reorg %1").arg(r.id)));
        QCOMPARE(qint64(b->forkPoint), r.forkBlock);
        QCOMPARE(qint64(b->blocks.size()), r.depth);
        QCOMPARE(forkable.value(b->forkHash, quint64(-1)), b->forkPoint);
        chain::Hash32 parent = b->forkHash;
        for (qsizetype i = 0; i < b->blocks.size(); ++i) {
            QCOMPARE(b->blocks[i].number, b->forkPoint + quint64(i) + 1);
            QCOMPARE(b->blocks[i].parentHash, parent); // one chain off the fork point
            parent = b->blocks[i].hash;
        }
    }
    // The tab shows that window: "Go to reorg" finds each branch, as the engine has it.
    QTRY_COMPARE_WITH_TIMEOUT(qint64(view->treeLayout().branches.size()),
                              qint64(storm.recorded.size()), 15000);
    for (const engine::ReorgMark& r : std::as_const(storm.recorded)) {
        QVERIFY(view->jumpToReorg(r.id));
        QTRY_VERIFY_WITH_TIMEOUT(view->treeLayout().findBranch(r.id).has_value(), 15000);
        const forktree::LayoutBranch& lb =
            view->treeLayout().branches[*view->treeLayout().findBranch(r.id)];
        QCOMPARE(qint64(lb.forkPoint), r.forkBlock);
        QCOMPARE(qint64(lb.depth), r.depth);
    }
}

// Clicks `hash`'s box on the canvas (panned to it first, as a user drags) and returns the
// rows the side table then lists.
void clickOrphan(Storm& storm, ui::ForkTreeView* view, const forktree::TreeBlock& block,
                 qint64 reorgId, forktree::ForkBlockRows& shown)
{
    ui::ForkTreeCanvas* canvas = view->canvas();
    const forktree::ForkTreeLayout& l = view->treeLayout();
    const auto box = l.findBox(block.hash);
    QVERIFY2(box,
             qPrintable(QString("block %1 of reorg %2 not drawn").arg(block.number).arg(reorgId)));
    QCOMPARE(l.boxes[*box].kind, forktree::BoxKind::Orphan);
    QCOMPARE(l.branches[l.boxes[*box].branch].reorgId, reorgId);
    QRectF rect = canvas->boxRect(*box);
    if (!canvas->rect().contains(rect.toRect())) {
        canvas->panBy(canvas->width() / 2.0 - rect.center().x(),
                      canvas->height() / 2.0 - rect.center().y());
        rect = canvas->boxRect(*box);
    }
    QVERIFY2(canvas->rect().contains(rect.toRect()), "the box is not on screen");
    QSignalSpy answers(&storm.lab.host, &engine::EngineHost::forkBlockAvailable);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, rect.center().toPoint());
    QCOMPARE(canvas->selectedBox(), *box);
    if (answers.isEmpty())
        QVERIFY(answers.wait(15000));
    shown = view->blockRows()->block();
    QCOMPARE(shown.hash, block.hash);
}

// An orphaned block's rows as the engine read them: the rollback's, and its removed
// Transfers exactly the diff's for that block.
void expectRemovedRows(const forktree::ForkBlockRows& rows, qint64 reorgId, quint64 number,
                       const QMap<qint64, QSet<QString>>& removed, qint64& compared)
{
    QVERIFY(rows.orphaned);
    QCOMPARE(rows.reorgId, reorgId);
    QCOMPARE(rows.number, number);
    QVERIFY(!rows.truncated);
    QSet<QString> listed;
    for (const forktree::ForkBlockRow& row : rows.rows)
        if (row.kind == forktree::ForkBlockRow::Kind::Transfer)
            listed.insert(stormRowKey(row.txHash.toHex(), row.logIndex, row.contract, row.from,
                                      row.to, row.value, row.cameBack));
    QCOMPARE(listed, removed.value(qint64(number)));
    compared += listed.size();
}

// Every orphaned block of every rollback against the reorg diff of that rollback: one block
// a rollback clicked on the canvas (the one that lost the most Transfers), the side table then
// listing its rows; the others asked of the engine as a click asks, all at once.
void checkEveryOrphanedBlock(Storm& storm, ui::ForkTreeView* view,
                             const forktree::ForkTreeWindow& window)
{
    QSignalSpy diffs(&storm.lab.host, &engine::EngineHost::reorgDiffAvailable);
    const auto* title = view->findChild<QLabel*>(QStringLiteral("forkTreeBlockTitle"));
    QVERIFY(title);
    qint64 compared = 0;
    for (const forktree::OrphanBranch& branch : window.branches) {
        const qint64 id = branch.reorgId;
        diffs.clear();
        storm.lab.host.requestReorgDiff(id);
        QVERIFY(diffs.wait(15000));
        const auto diff = diffs.last().at(0).value<engine::ReorgDiff>();
        QCOMPARE(diff.reorg.id, id);
        QMap<qint64, QSet<QString>> removed; // by block number
        for (const auto& item : diff.items) {
            if (item.kind != QLatin1String("transfer_removed"))
                continue;
            QVERIFY(item.blockNumber > qint64(branch.forkPoint) &&
                    item.blockNumber <= qint64(branch.forkPoint) + branch.blocks.size());
            removed[item.blockNumber].insert(
                stormRowKey(item.txHash, item.logIndex, item.contract, item.from, item.to,
                            item.value, item.again != engine::ReorgDiff::Item::Again::No));
        }
        qsizetype pick = 0;
        for (qsizetype i = 1; i < branch.blocks.size(); ++i)
            if (removed.value(qint64(branch.blocks[i].number)).size() >
                removed.value(qint64(branch.blocks[pick].number)).size())
                pick = i;
        QVERIFY(view->jumpToReorg(id));
        forktree::ForkBlockRows shown;
        clickOrphan(storm, view, branch.blocks[pick], id, shown);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(title->text().contains(QString("removed by reorg #%1").arg(id)),
                 qPrintable(title->text()));
        QCOMPARE(view->blockRows()->rowCount(), int(shown.rows.size()));
        expectRemovedRows(shown, id, branch.blocks[pick].number, removed, compared);

        QSignalSpy answers(&storm.lab.host, &engine::EngineHost::forkBlockAvailable);
        QHash<chain::Hash32, quint64> asked;
        for (qsizetype i = 0; i < branch.blocks.size(); ++i)
            if (i != pick) {
                asked.insert(branch.blocks[i].hash, branch.blocks[i].number);
                storm.lab.host.requestForkBlock(branch.blocks[i].hash);
            }
        while (answers.size() < asked.size() && answers.wait(15000)) {
        }
        QCOMPARE(answers.size(), asked.size());
        for (const QList<QVariant>& a : std::as_const(answers)) {
            const auto rows = a.at(0).value<forktree::ForkBlockRows>();
            QVERIFY(asked.contains(rows.hash));
            expectRemovedRows(rows, id, asked.take(rows.hash), removed, compared);
            if (QTest::currentTestFailed())
                return;
        }
    }
    QVERIFY2(compared > 0, "the rollbacks removed no Transfer to compare");
    qInfo("%lld removed Transfers compared, %lld blocks clicked", compared,
          qint64(window.branches.size()));
}

} // namespace

void TestForkTreeLab::everyRollbackOfAStormIsABranch_data()
{
    QTest::addColumn<bool>("postgres");
    QTest::addColumn<int>("reorgs");
    // clang-format off
    QTest::newRow("sqlite, 200 reorgs") << false << 200;
    QTest::newRow("postgresql, 200 reorgs") << true << 200;
    // clang-format on
}

void TestForkTreeLab::everyRollbackOfAStormIsABranch()
{
    QFETCH(bool, postgres);
    QFETCH(int, reorgs);
    if (postgres && !m_cluster.isRunning())
        m_cluster.start();
    QElapsedTimer clock;
    clock.start();
    test::Lab lab;
    lab.w.resize(1280, 720);
    const QString db = postgres ? m_cluster.url() : lab.dbPath();
    lab.start(0, [&](engine::EngineConfig& c) {
        c.dbPath = db;
        c.demoInterval = std::chrono::milliseconds(100); // a block a tick, transfers in each
        c.demoTransfersPerTick = 2;
        // The indexer looks at the node about as often as an injection lands, so the storm
        // leaves many rollbacks of its own as well as some folded together.
        c.indexer.pollInterval = std::chrono::milliseconds(100);
        c.indexer.orphanRetention = 1000000; // every branch of the storm kept
    });
    QCOMPARE(lab.w.size(), QSize(1280, 720));
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reorg")->isEnabled(), 60000);
    test::settle(lab, 16);
    ui::ForkTreeView* view = lab.w.forkTreeView();
    lab.w.drawer()->showPage(lab.w.drawer()->indexOfPage(view));
    QTRY_VERIFY(view->canvas()->isVisible());

    Storm storm(lab);
    rpc::JsonRpcClient anvil{QUrl(lab.last().endpoint)};
    rpc::EthClient eth(anvil);
    storm.head = eth.blockNumber();
    const qint64 settled = clock.elapsed();

    // Back to back, never waiting for the indexer: a quarter right after the one before, the
    // others after a pause shorter than two of its polls, so the storm leaves rollbacks of
    // one injection as well as of several folded together. Mostly kept (the replaced blocks'
    // Transfers come back in the new ones), some moved a block later, a few shallow ones
    // dropped (gone for good).
    QRandomGenerator rng(53u + quint32(reorgs));
    for (int i = 0; i < reorgs && storm.failures.isEmpty(); ++i) {
        const int depth = int(rng.bounded(1, 13));
        const int pick = int(rng.bounded(10));
        const int mode = pick == 0 && depth <= 3 ? 1 : pick <= 3 && depth >= 2 ? 2 : 0;
        const int pause = rng.bounded(4) == 0 ? 0 : int(rng.bounded(40, 200));
        storm.injectedForks.insert(qint64(storm.head) - depth);
        lab.host.injectReorg(depth, mode);
        QVERIFY2(storm.waitForInjection(i + 1, 30000),
                 qPrintable(QString("injection %1 of depth %2").arg(i).arg(depth)));
        if (pause > 0)
            QTest::qWait(pause);
    }
    QVERIFY2(storm.failures.isEmpty(), qPrintable(storm.failures.join('\n')));
    const qint64 injectedAt = clock.elapsed();
    QCOMPARE(eth.blockNumber(), storm.head);
    const QString finalHash = eth.blockByNumber(storm.head)->hash.toHex();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint == storm.head &&
                                 lab.last().storedCheckpoint == storm.head &&
                                 lab.last().checkpointHash == finalHash,
                             90000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 90000);
    // Every rollback the indexer made is one a status listed.
    QTRY_COMPARE_WITH_TIMEOUT(qint64(storm.recorded.size()), lab.last().reorgs, 15000);
    QVERIFY(!storm.recorded.isEmpty());
    const qint64 caughtUpAt = clock.elapsed();
    qInfo("%d reorgs injected, %lld rollbacks recorded", reorgs, qint64(storm.recorded.size()));

    // Each rollback forked where some injection did, and removed what was stored above it.
    for (const engine::ReorgMark& r : std::as_const(storm.recorded)) {
        QVERIFY2(storm.injectedForks.contains(r.forkBlock),
                 qPrintable(QString("reorg %1 forked at %2").arg(r.id).arg(r.forkBlock)));
        QVERIFY(r.depth >= 1 && quint64(r.forkBlock + r.depth) <= storm.head);
    }

    forktree::ForkTreeWindow window;
    checkTheTree(storm, view, window);
    if (QTest::currentTestFailed())
        return;
    const qint64 treeAt = clock.elapsed();
    checkEveryOrphanedBlock(storm, view, window);
    if (QTest::currentTestFailed())
        return;
    qInfo("settle %lld ms, storm %lld ms, catch-up %lld ms, tree %lld ms, clicks %lld ms", settled,
          injectedAt - settled, caughtUpAt - injectedAt, treeAt - caughtUpAt,
          clock.elapsed() - treeAt);
    lab.host.shutdown();
}

QTEST_MAIN(TestForkTreeLab)
#include "tst_forktreelab.moc"
