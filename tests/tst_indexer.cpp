// `forkscope index` against a real anvil, as a user runs it: sync, reorgs of several
// depths, a reorg deeper than the limit, kill -9 at every crash point, outages, a lagging
// node, two writers, and a chain reset; and, with the indexer in this process behind a node
// 30 ms away, the head check a backfill asks ahead. After each: the four invariants of
// docs/design.md, checked against the node, plus an independent balance computation. Every
// test that writes a store runs on both, the backend a data row (a SQLite file, or a
// database of its own on the suite's throwaway PostgreSQL cluster), and reads it back
// through the store's contract surface.
#include "IndexerLab.h"
#include "StoreRows.h"
#include "indexer/IndexStore.h"
#include "indexer/Indexer.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "rpc/JsonRpcClient.h"
#include "store/OpenStore.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;

namespace {
QProcessEnvironment crashEnv(const QString& point, int after)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("FORKSCOPE_CRASH_AT", point);
    env.insert("FORKSCOPE_CRASH_AFTER", QString::number(after));
    return env;
}

// An indexer in this process, environment "env" in ranges of 4 blocks, behind a node 30 ms
// away (a proxy on a thread of its own: the indexer blocks this one while it waits for its
// fetch threads). The lab's chain: a token, 30 blocks of sprays, then `emptyBlocks`.
struct DistantIndexer
{
    DistantIndexer(IndexerLab& lab, int emptyBlocks)
        : built(buildChain(lab, emptyBlocks)), node(lab.devnet().url(), 30),
          store(store::openIndexStore(lab.db())), client(node.url()), eth(client),
          indexer(config(lab), *store, eth)
    {
    }
    static bool buildChain(IndexerLab& lab, int emptyBlocks)
    {
        lab.deployToken("AAA");
        lab.sprayAll(30, 3, 20);
        lab.mine(emptyBlocks);
        return true;
    }
    indexer::IndexerConfig config(IndexerLab& lab) const
    {
        indexer::IndexerConfig c;
        c.rpcUrl = node.url();
        c.dbPath = lab.db();
        c.environmentId = QStringLiteral("env");
        c.contracts = lab.contracts();
        c.batchSize = 4;
        c.fetchWorkers = 2;
        return c;
    }

    const bool built; // first: the chain exists before the indexer is configured for it
    lab::FaultProxyThread node;
    std::unique_ptr<indexer::IndexStore> store;
    rpc::JsonRpcClient client;
    rpc::EthClient eth;
    indexer::Indexer indexer;
};

// `forkscope index`'s loop, in this process: steps until synced (or `untilCheckpoint` is
// reached), waiting out the retry delays as the engine does.
const indexer::IndexerStatus& stepIndexer(indexer::Indexer& idx,
                                          std::uint64_t untilCheckpoint = UINT64_MAX)
{
    for (int round = 0; round < 2000; ++round) {
        const indexer::IndexerStatus& s = idx.step();
        if (s.state == indexer::IndexerStatus::State::Synced ||
            (s.checkpoint && *s.checkpoint >= untilCheckpoint))
            return s;
        if (s.retryDelayMs > 0)
            QTest::qWait(std::min(s.retryDelayMs, 200));
    }
    return idx.status();
}

#define VERIFY_INVARIANTS(lab, env)                                                                \
    do {                                                                                           \
        const QStringList problems = (lab).verify(env);                                            \
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));                             \
    } while (0)

} // namespace

class TestIndexer : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_stores.startCluster(); }
    void syncFromScratch_data() { test::StoreRows::backendRows(); }
    void syncFromScratch();
    void reorgs_data();
    void reorgs();
    void reorgDeeperThanLimitChangesNothing_data() { test::StoreRows::backendRows(); }
    void reorgDeeperThanLimitChangesNothing();
    void crashPoints_data();
    void crashPoints();
    void nodeStoppedMidSyncIsNotAReorg_data() { test::StoreRows::backendRows(); }
    void nodeStoppedMidSyncIsNotAReorg();
    void laggingNodeNeverCausesRollback_data() { test::StoreRows::backendRows(); }
    void laggingNodeNeverCausesRollback();
    void twoWritersKeepOneConsistentCursor_data() { test::StoreRows::backendRows(); }
    void twoWritersKeepOneConsistentCursor();
    void chainResetIsRefused_data() { test::StoreRows::backendRows(); }
    void chainResetIsRefused();
    void changedContractSetIsRefused_data() { test::StoreRows::backendRows(); }
    void changedContractSetIsRefused();
    void silentCapStillIndexesEverything_data() { test::StoreRows::backendRows(); }
    void silentCapStillIndexesEverything();
    void blockOnTheCapStopsWithSuspectedTruncation_data() { test::StoreRows::backendRows(); }
    void blockOnTheCapStopsWithSuspectedTruncation();
    void backfillWithInjectedErrorsCompletes_data() { test::StoreRows::backendRows(); }
    void backfillWithInjectedErrorsCompletes();
    void headCheckAheadAnswersOnlyItsQuestion();
    void backfillAsksTheHeadCheckDuringTheCommit_data() { test::StoreRows::backendRows(); }
    void backfillAsksTheHeadCheckDuringTheCommit();
    void reorgBelowTheCheckpointMidBackfill_data() { test::StoreRows::backendRows(); }
    void reorgBelowTheCheckpointMidBackfill();
    void absenceWithoutHashContradictionDeletesNothing_data() { test::StoreRows::backendRows(); }
    void absenceWithoutHashContradictionDeletesNothing();
    void absenceAlertIsSettledByTheRollbackOfItsBlocks_data() { test::StoreRows::backendRows(); }
    void absenceAlertIsSettledByTheRollbackOfItsBlocks();
    void abiDecodingOnTheFetchSide_data() { test::StoreRows::backendRows(); }
    void abiDecodingOnTheFetchSide();
    void badArguments_data();
    void badArguments();

private:
    test::StoreRows m_stores;
};

void TestIndexer::abiDecodingOnTheFetchSide()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    auto& a = lab.deployToken("AAA");
    lab.sprayAll(3, 4, 5);
    a.emitTransferMissingTopic(a.sender(), chain::U256(5));
    a.emitTransferShortData(a.sender(), lab::DemoToken::sprayHolder(1));
    a.send(QByteArray::fromHex("095ea7b3") + QByteArray(12, '\0') +
           lab::DemoToken::sprayHolder(2).toByteArray() +
           chain::u256::toBigEndian32(chain::U256(77))); // approve(holder2, 77)
    const ProcessRun run =
        lab.runIndex("env", {"--exit-when-synced", "--abi",
                             FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(
        run.out.contains("abi: 14 logs decoded, 0 unmatched or anonymous (kept raw), 2 failed"),
        qPrintable(run.out));
    // One batch, well under a second: the progress line still reports the rate it had.
    QVERIFY2(run.out.contains(QRegularExpression("\\| [1-9]\\d* blocks/s [1-9]\\d* logs/s")),
             qPrintable(run.out));
    QCOMPARE(
        lab.count(
            "SELECT count(*) FROM logs WHERE event_name = 'Transfer' AND args_json IS NOT NULL"),
        13);
    const auto arg = [&lab](const char* column, const char* key) {
        return lab.jsonText(QString::fromLatin1(column), QString::fromLatin1(key));
    };
    QCOMPARE(lab.count("SELECT count(*) FROM logs WHERE event_name = 'Approval' AND " +
                       arg("args_json", "value") + " = '77'"),
             1);
    QCOMPARE(
        lab.count(
            "SELECT count(*) FROM logs WHERE event_name = 'Transfer' AND args_json IS NULL AND "
            "decode_error LIKE '%ABI:%'"),
        2);
    // The decoded arguments agree with the projection.
    QCOMPARE(lab.count("SELECT count(*) FROM logs l JOIN transfer_events t USING (environment_id, "
                       "chain_id, block_number, log_index) WHERE " +
                       arg("l.args_json", "value") + " = t.value AND " +
                       arg("l.args_json", "from") + " = t.from_addr AND " +
                       arg("l.args_json", "to") + " = t.to_addr"),
             13);
    // ...and are not stored twice in a SQLite file (contract v4, its own storage: a
    // PostgreSQL database has no template table): a Transfer's args_json is rendered from its
    // topics and value through one template, except a self-transfer's (its two addresses
    // are one).
    if (!lab.onPostgres()) {
        QCOMPARE(lab.count("SELECT count(*) FROM args_templates"), 1);
        const qint64 selfTransfers =
            lab.count("SELECT count(*) FROM transfer_events WHERE from_addr = to_addr");
        QCOMPARE(lab.count("SELECT count(*) FROM log_store WHERE event_name = 'Transfer' AND "
                           "args_json IS NULL AND args_template_id IS NOT NULL"),
                 13 - selfTransfers);
        QCOMPARE(lab.count("SELECT count(*) FROM log_store WHERE event_name = 'Approval' AND "
                           "args_json IS NOT NULL AND args_template_id IS NULL"),
                 1);
    }
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::absenceWithoutHashContradictionDeletesNothing()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(8, 5, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const qint64 logs = lab.count("SELECT count(*) FROM logs");
    const qint64 balances = lab.count("SELECT count(*) FROM token_balances");

    // A provider that stops returning logs while the blocks stay the same.
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setDropLogs(true);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"}, proxy.url());
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("ABSENCE: stored logs of block") &&
                 run.out.contains("headers still match: nothing deleted"),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("1 absence suspicions"), qPrintable(run.out));
    QCOMPARE(lab.count("SELECT count(*) FROM logs"), logs);
    QCOMPARE(lab.count("SELECT count(*) FROM token_balances"), balances);
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    VERIFY_INVARIANTS(lab, "env");

    // Kept as an open alert (the app and the report say "data incomplete" over it), once:
    // the same suspicion met again is not a second alert.
    const char* openAbsence = "SELECT count(*) FROM completeness_alerts WHERE kind = 'absence' "
                              "AND resolved_at IS NULL";
    QCOMPARE(lab.count(openAbsence), 1);
    const QString what = lab.text("SELECT what FROM completeness_alerts WHERE kind = 'absence'");
    QVERIFY2(what.startsWith("the node no longer returns stored logs of block") &&
                 what.contains("`forkscope repair --from"),
             qPrintable(what));
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}, proxy.url()));
    QCOMPARE(lab.count(openAbsence), 1);
    QCOMPARE(lab.count("SELECT count(*) FROM completeness_alerts"), 1);

    // The node returns the logs again: the alert is settled, and says how.
    const ProcessRun honest = lab.runIndex("env", {"--exit-when-synced"});
    VERIFY_EXIT_OK(honest);
    QVERIFY2(!honest.out.contains("ABSENCE"), qPrintable(honest.out));
    QCOMPARE(lab.count(openAbsence), 0);
    QCOMPARE(lab.text("SELECT resolution FROM completeness_alerts WHERE kind = 'absence'"),
             QStringLiteral("the node returns every stored log of these blocks again"));
}

// A suspicion about blocks a reorg then replaces is settled by that rollback, in its
// transaction: the blocks it doubted are gone and indexed again.
void TestIndexer::absenceAlertIsSettledByTheRollbackOfItsBlocks()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(8, 5, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setDropLogs(true);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}, proxy.url()));
    const char* openAbsence = "SELECT count(*) FROM completeness_alerts WHERE kind = 'absence' "
                              "AND resolved_at IS NULL";
    QCOMPARE(lab.count(openAbsence), 1);
    const qint64 doubtedFrom = lab.count("SELECT from_block FROM completeness_alerts");

    // The chain replaces every block from the first doubted one: a hash mismatch at the
    // checkpoint, rolled back below the alert's blocks.
    lab.reorg(int(qint64(lab.eth().blockNumber()) - doubtedFrom + 1));
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("REORG (hash mismatch)"), qPrintable(run.out));
    // Said in what the data holds, not in database rows.
    QVERIFY2(run.out.contains("transfers removed") && !run.out.contains("rows removed"),
             qPrintable(run.out));
    QCOMPARE(lab.count(openAbsence), 0);
    const QString resolution =
        lab.text("SELECT resolution FROM completeness_alerts WHERE kind = 'absence'");
    QVERIFY2(resolution.startsWith("its blocks were rolled back (reorg #"), qPrintable(resolution));
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::silentCapStillIndexesEverything()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(40, 20, 300); // 1,600 transfers in 40 blocks of 40 (under the cap of 50)
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    const ProcessRun run = lab.runIndex(
        "env", {"--exit-when-synced", "--batch-size", "1000", "--log-cap", "50"}, proxy.url());
    VERIFY_EXIT_OK(run);
    const QRegularExpressionMatch m = QRegularExpression("\\((\\d+) range halvings").match(run.out);
    QVERIFY2(m.hasMatch() && m.captured(1).toInt() > 0, qPrintable(run.out));
    QVERIFY(proxy.cappedReplies() > 0);
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events"), 2 + 1600);
    // The head's absence check reads its window through the same cap: a capped reply is
    // asked again in halves, not taken for stored logs gone.
    QVERIFY2(!run.out.contains("ABSENCE"), qPrintable(run.out));
    QCOMPARE(lab.count("SELECT count(*) FROM completeness_alerts"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::blockOnTheCapStopsWithSuspectedTruncation()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    auto& token = lab.deployToken("AAA");
    lab.sprayAll(5, 10, 10);
    const qint64 good = qint64(lab.eth().blockNumber());
    token.spray(60, 0, 60); // one block holding more Transfers than the cap
    const qint64 bad = qint64(lab.eth().blockNumber());
    lab.sprayAll(3, 10, 10);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    proxy.setNoReceipts(true); // nothing can prove the block
    const ProcessRun run = lab.runIndex(
        "env", {"--exit-when-synced", "--batch-size", "4", "--log-cap", "50"}, proxy.url());
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.err.contains(QStringLiteral("suspected truncation: block %1").arg(bad)),
             qPrintable(run.err));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    // Whatever was committed is consistent; nothing at or after the block. Everything before
    // it in a file, whose ranges are cut from the checkpoint each round at the size the
    // last range's logs call for. A PostgreSQL index cuts the backfill into ranges up to the
    // head once (PgCoordination::claim), and the range that holds the block is lost whole.
    const qint64 cp = lab.count("SELECT block_number FROM indexer_checkpoints");
    QVERIFY2(cp >= (lab.onPostgres() ? good - 3 : good) && cp < bad,
             qPrintable(QStringLiteral("checkpoint %1, block %2").arg(cp).arg(bad)));
    QCOMPARE(
        lab.count(QStringLiteral("SELECT count(*) FROM logs WHERE block_number >= %1").arg(bad)),
        0);
    QCOMPARE(
        lab.count(QStringLiteral("SELECT count(*) FROM blocks WHERE block_number >= %1").arg(bad)),
        0);
    // Without the cap the same database completes.
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    VERIFY_INVARIANTS(lab, "env");
    // So does the capped node once it serves the block's receipts: they prove its 60 logs.
    proxy.setNoReceipts(false);
    VERIFY_EXIT_OK(
        lab.runIndex("receipts", {"--exit-when-synced", "--batch-size", "4"}, proxy.url()));
    VERIFY_INVARIANTS(lab, "receipts");
}

void TestIndexer::backfillWithInjectedErrorsCompletes()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(60, 5, 40);
    lab.mine(140); // 200+ blocks: a backfill of 20+ ranges
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setSeed(42);
    proxy.setErrorRate(0.10);
    const ProcessRun run = lab.runIndex(
        "env",
        {"--exit-when-synced", "--batch-size", "10", "--fetch-workers", "4", "--poll-ms", "50"},
        proxy.url());
    VERIFY_EXIT_OK(run);
    QVERIFY(proxy.injectedErrors() > 0);
    VERIFY_INVARIANTS(lab, "env");
    // The ledger shows every range done, and the failures that were retried.
    const qint64 ranges = lab.count("SELECT count(*) FROM backfill_ranges");
    QVERIFY(ranges >= 15); // the last two batches are head-following, not backfill
    QCOMPARE(lab.count("SELECT count(*) FROM backfill_ranges WHERE status <> 'done'"), 0);
    const QRegularExpressionMatch m =
        QRegularExpression("(\\d+) failed fetches retried").match(run.out);
    QVERIFY2(m.hasMatch(), qPrintable(run.out));
    if (m.captured(1).toInt() > 0)
        QVERIFY(lab.count("SELECT count(*) FROM backfill_ranges WHERE attempts > 1 OR last_error "
                          "IS NOT NULL") > 0);
}

// An answer is only ever taken for the checkpoint it was asked about: the same height with
// another hash (a checkpoint rewritten in between) gets none, and the question is forgotten.
void TestIndexer::headCheckAheadAnswersOnlyItsQuestion()
{
    IndexerLab lab;
    lab.mine(5);
    const auto block3 = lab.eth().blockByNumber(3);
    QVERIFY(block3);
    indexer::HeadCheckAhead check(lab.devnet().url(), std::chrono::seconds(10), {});
    indexer::Checkpoint cp;
    cp.number = 3;
    cp.hash = block3->hash;
    QVERIFY(!check.takeFor(cp)); // nothing asked yet

    indexer::Checkpoint other = cp;
    other.hash = lab.eth().blockByNumber(2)->hash;
    check.ask(3, block3->hash);
    QVERIFY(!check.takeFor(other));
    QVERIFY(!check.takeFor(cp)); // forgotten, not kept for later

    check.ask(2, other.hash); // a question replaced by the next is forgotten too
    check.ask(3, block3->hash);
    const auto answer = check.takeFor(cp);
    QVERIFY(answer);
    QCOMPARE(answer->head, lab.eth().blockNumber());
    QVERIFY(answer->block);
    QCOMPARE(answer->block->hash, block3->hash);
    // The node's identity rides along, for the round's identity check.
    QCOMPARE(answer->chainId, 31337u);
    QCOMPARE(answer->genesis, lab.eth().blockByNumber(0)->hash);
    QVERIFY(!check.takeFor(cp)); // taken once
}

// During a backfill each round's first check (head, and the checkpoint's block) is asked
// before the commit that writes that checkpoint, on a thread of its own, and taken by the
// next round (indexer/HeadCheckAhead.h). The node is 30 ms away, so every answer arrives after
// a short commit: an answer taken for the wrong question would read as a hash mismatch, a
// false reorg.
void TestIndexer::backfillAsksTheHeadCheckDuringTheCommit()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    DistantIndexer distant(lab, 20);
    indexer::Indexer& idx = distant.indexer;

    const indexer::IndexerStatus& s = stepIndexer(idx);
    QCOMPARE(s.state, indexer::IndexerStatus::State::Synced);
    // 50+ blocks in ranges of 4: a backfill of at least ten rounds, each checked ahead but
    // the first and those at the head.
    QVERIFY2(s.headChecksAhead >= 8, qPrintable(QString::number(s.headChecksAhead)));
    QCOMPARE(s.reorgs, 0);
    QCOMPARE(s.inconsistencies, 0);
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    QVERIFY(lab.checkpointOnTheNodesHead("env"));
    VERIFY_INVARIANTS(lab, "env");
}

// A reorg that replaces the checkpoint's block while a backfill runs: the check asked during
// the last commit may predate it, so the round after it may commit one more range on the old
// branch; the next check, or that range's successor's parent link, sees the reorg, and one
// rollback takes both back. The result is the node's chain.
void TestIndexer::reorgBelowTheCheckpointMidBackfill()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    DistantIndexer distant(lab, 10);
    indexer::Indexer& idx = distant.indexer;

    const std::uint64_t head = lab.eth().blockNumber();
    const indexer::IndexerStatus& s = stepIndexer(idx, 16);
    QVERIFY2(s.checkpoint && *s.checkpoint >= 16 && *s.checkpoint + 10 < head,
             qPrintable(
                 QStringLiteral("checkpoint %1, head %2").arg(s.checkpoint.value_or(0)).arg(head)));
    QVERIFY(s.headChecksAhead > 0);
    // Three blocks below the checkpoint and everything above: a new branch, as long.
    lab.reorg(int(head - *s.checkpoint) + 3);

    QCOMPARE(stepIndexer(idx).state, indexer::IndexerStatus::State::Synced);
    QVERIFY(lab.count("SELECT count(*) FROM reorg_events") >= 1);
    QVERIFY(lab.checkpointOnTheNodesHead("env"));
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::syncFromScratch()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    auto& a = lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(12, 9, 40);
    // Logs that claim to be Transfers but do not decode: kept raw, never guessed.
    a.emitTransferMissingTopic(a.sender(), chain::U256(5));
    a.emitTransferShortData(a.sender(), lab::DemoToken::sprayHolder(1));
    // A transfer to the zero address (a burn): the zero address is not a holder.
    a.transfer(chain::Address(), chain::U256(77));
    lab.mine(5); // empty blocks still advance the checkpoint

    const ProcessRun run = lab.runIndex("lab-1", {"--exit-when-synced", "--batch-size", "7"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QRegularExpression("head \\d+ checkpoint \\d+ lag \\d+ \\|")),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("2 logs carried the Transfer topic but did not decode"),
             qPrintable(run.out));
    VERIFY_INVARIANTS(lab, "lab-1");

    const qint64 head = qint64(lab.eth().blockNumber());
    QCOMPARE(
        lab.count("SELECT block_number FROM indexer_checkpoints WHERE environment_id = 'lab-1'"),
        head);
    QCOMPARE(lab.count("SELECT count(*) FROM blocks"), head + 1);
    QCOMPARE(lab.count("SELECT count(*) FROM logs WHERE decode_error IS NOT NULL"), 2);
    // 2 mints + 2*12*9 sprays + 1 burn
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events"), 2 + 2 * 12 * 9 + 1);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox"), 2 + 2 * 12 * 9 + 1);
    QCOMPARE(lab.count("SELECT count(*) FROM token_balances WHERE holder = "
                       "'0x0000000000000000000000000000000000000000'"),
             0);
    QCOMPARE(lab.count("SELECT count(*) FROM environments WHERE environment_id = 'lab-1' AND "
                       "chain_id = 31337 AND genesis_hash LIKE '0x%'"),
             1);

    // Running again at the head changes nothing but the verification time.
    const ProcessRun again = lab.runIndex("lab-1", {"--exit-when-synced"});
    VERIFY_EXIT_OK(again);
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events"), 2 + 2 * 12 * 9 + 1);
    VERIFY_INVARIANTS(lab, "lab-1");
}

void TestIndexer::reorgs_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("depth");
    for (const QString& backend : test::StoreRows::backends())
        for (int depth : {1, 5, 30})
            QTest::addRow("%s, depth %d", qPrintable(backend), depth) << backend << depth;
}

// Also the restart case: the chain is reorged while the indexer is down, so the restart
// finds a hash mismatch at its checkpoint.
void TestIndexer::reorgs()
{
    QFETCH(QString, backend);
    QFETCH(int, depth);
    IndexerLab lab(m_stores.freshDatabase(backend));
    auto& a = lab.deployToken("AAA");
    auto& b = lab.deployToken("BBB");
    lab.sprayAll(40, 6, 25); // 40 blocks of transfers, two tokens each
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--batch-size", "16"}));
    VERIFY_INVARIANTS(lab, "env");
    const qint64 before = lab.count("SELECT count(*) FROM transfer_events");
    const qint64 cpBefore = lab.count("SELECT block_number FROM indexer_checkpoints");

    // The replacing branch drops most of the reorged transfers, re-includes one at another
    // height and adds a new one.
    QList<QPair<QJsonObject, int>> reinclude;
    reinclude.append({a.txRequest(lab::DemoToken::sprayCalldata(4, 1000, 25)), 0});
    if (depth > 1)
        reinclude.append({b.txRequest(lab::DemoToken::transferCalldata(
                              lab::DemoToken::sprayHolder(3), chain::U256(9))),
                          depth - 1});
    lab.reorg(depth, reinclude);

    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced", "--batch-size", "16"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("REORG (hash mismatch)"), qPrintable(run.out));
    VERIFY_INVARIANTS(lab, "env");
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 1);
    QCOMPARE(lab.count("SELECT depth FROM reorg_events"), depth);
    QCOMPARE(lab.count("SELECT old_block_number FROM reorg_events"), cpBefore);
    QCOMPARE(lab.count("SELECT fork_block_number FROM reorg_events"), cpBefore - depth);
    // The diff says what was undone: every removed transfer, and balances before/after.
    const qint64 removed =
        lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind = 'transfer_removed'");
    QVERIFY(removed > 0);
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind = 'outbox_dropped'"),
             removed);
    QVERIFY(lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind = 'balance_changed' AND "
                      "before_value IS NOT NULL") > 0);
    const qint64 reincluded = 4 + (depth > 1 ? 1 : 0);
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events"), before - removed + reincluded);
}

void TestIndexer::reorgDeeperThanLimitChangesNothing()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(10, 5, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--max-reorg-depth", "3"}));
    const QString dump = lab.dump();
    lab.reorg(5);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced", "--max-reorg-depth", "3"});
    QVERIFY2(run.finished && run.exitStatus == QProcess::NormalExit && run.exitCode == 1,
             qPrintable(run.describe()));
    const QStringList errLines = run.err.trimmed().split('\n');
    QCOMPARE(errLines.size(), 1);
    QVERIFY2(errLines[0].contains("reorg deeper than --max-reorg-depth 3") &&
                 errLines[0].contains("Nothing was deleted"),
             qPrintable(run.err));
    QCOMPARE(lab.dump(), dump);
    // With a sufficient limit the same database recovers.
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--max-reorg-depth", "8"}));
    VERIFY_INVARIANTS(lab, "env");
    QCOMPARE(lab.count("SELECT depth FROM reorg_events"), 5);
}

void TestIndexer::crashPoints_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("point");
    for (const QString& backend : test::StoreRows::backends())
        for (const char* point : {"before-commit", "after-commit", "mid-rollback"})
            QTest::addRow("%s, %s", qPrintable(backend), point) << backend << QString(point);
}

void TestIndexer::crashPoints()
{
    QFETCH(QString, backend);
    QFETCH(QString, point);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(15, 5, 20);
    QString dumpBeforeCrash;
    if (point == "mid-rollback") {
        VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--batch-size", "8"}));
        lab.reorg(4, {{lab.tokens()[0].txRequest(lab::DemoToken::sprayCalldata(3, 77, 20)), 1}});
        dumpBeforeCrash = lab.dump();
    }
    const ProcessRun crashed = lab.runIndex("env", {"--exit-when-synced", "--batch-size", "4"}, {},
                                            crashEnv(point, point == "mid-rollback" ? 0 : 2));
    QVERIFY2(crashed.finished && crashed.exitStatus == QProcess::CrashExit,
             qPrintable(crashed.describe()));
    QVERIFY(crashed.err.contains("crash point " + point));
    if (point == "mid-rollback") {
        // The rollback transaction died: nothing of it is visible.
        QCOMPARE(lab.dump(), dumpBeforeCrash);
    } else {
        // Whatever committed is a consistent prefix.
        QVERIFY(lab.count("SELECT block_number FROM indexer_checkpoints") > 0);
    }

    const ProcessRun resumed = lab.runIndex("env", {"--exit-when-synced", "--batch-size", "4"});
    VERIFY_EXIT_OK(resumed);
    VERIFY_INVARIANTS(lab, "env");
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), point == "mid-rollback" ? 1 : 0);
}

void TestIndexer::nodeStoppedMidSyncIsNotAReorg()
{
    QFETCH(QString, backend);
    QTemporaryDir stateDir;
    lab::Devnet::Options opts;
    opts.port = lab::Devnet::findFreePort();
    opts.extraArgs = {"--state", stateDir.filePath("anvil-state.json")};
    IndexerLab lab(m_stores.freshDatabase(backend), opts);
    lab.deployToken("AAA");
    lab.sprayAll(10, 4, 10);
    lab.mine(1500);

    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            lab.indexArgs("env", {"--exit-when-synced", "--batch-size", "1", "--poll-ms", "100"}));
    QVERIFY(p.waitForStarted());
    // Wait for the first progress line: the sync is under way.
    QTRY_VERIFY_WITH_TIMEOUT(p.canReadLine() || p.state() != QProcess::Running, 30000);
    QVERIFY2(p.state() == QProcess::Running, "sync finished before the outage could be staged");
    lab.devnet().stop(); // anvil writes its state on the way out
    QTRY_VERIFY_WITH_TIMEOUT(QString::fromUtf8(p.peek(1 << 20)).contains("node unreachable"),
                             20000);
    lab.devnet().start(opts);
    const ProcessRun run = test::waitForProcess(p, 120000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::laggingNodeNeverCausesRollback()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(10, 4, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const QString dump = lab.dump();

    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLagBlocks(6);
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            lab.indexArgs("env", {"--poll-ms", "100"}, proxy.url()));
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        QString::fromUtf8(p.peek(1 << 20)).contains("node behind the checkpoint"), 20000);
    QTest::qWait(500); // several more rounds against the lagging view
    proxy.setOffline(true);
    QTRY_VERIFY_WITH_TIMEOUT(QString::fromUtf8(p.peek(1 << 20)).contains("node unreachable"),
                             20000);
    ::kill(pid_t(p.processId()), SIGINT);
    const ProcessRun run = test::waitForProcess(p, 20000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));
    QCOMPARE(lab.dump(), dump);

    // The node catches up: indexing resumes where it was.
    proxy.setOffline(false);
    proxy.setLagBlocks(0);
    lab.sprayAll(3, 4, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}, proxy.url()));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::twoWritersKeepOneConsistentCursor()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(30, 5, 30);
    QProcess p1, p2;
    const QStringList args = lab.indexArgs("env", {"--exit-when-synced", "--batch-size", "2"});
    p1.start(QStringLiteral(FORKSCOPE_BINARY), args);
    p2.start(QStringLiteral(FORKSCOPE_BINARY), args);
    const ProcessRun r1 = test::waitForProcess(p1, 120000);
    const ProcessRun r2 = test::waitForProcess(p2, 120000);
    VERIFY_EXIT_OK(r1);
    VERIFY_EXIT_OK(r2);
    VERIFY_INVARIANTS(lab, "env");
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events"), 2 + 2 * 30 * 5);
    QCOMPARE(lab.count("SELECT count(*) FROM indexer_checkpoints"), 1);
}

void TestIndexer::chainResetIsRefused()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(3, 3, 5);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const QString dump = lab.dump();

    lab::Devnet fresh; // a new chain: same chain id, another genesis
    lab::Devnet::Options opts;
    opts.extraArgs = {"--timestamp", "1000"};
    fresh.start(opts);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"}, fresh.url());
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.err.contains("the chain was reset; open a new environment") &&
                 run.err.contains("Nothing was written"),
             qPrintable(run.err));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QCOMPARE(lab.dump(), dump);

    // A new environment on the new chain works and does not touch the old one's rows.
    const qint64 oldTransfers =
        lab.count("SELECT count(*) FROM transfer_events WHERE environment_id = 'env'");
    VERIFY_EXIT_OK(lab.runIndex("env-2", {"--exit-when-synced"}, fresh.url()));
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events WHERE environment_id = 'env'"),
             oldTransfers);
    QCOMPARE(lab.count("SELECT count(*) FROM environments"), 2);
}

void TestIndexer::changedContractSetIsRefused()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    const QString a = lab.deployToken("AAA").address().toHex();
    lab.sprayAll(3, 3, 5);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    QCOMPARE(lab.count("SELECT count(*) FROM indexer_checkpoints WHERE contracts = '" + a + "'"),
             1);
    const QString dump = lab.dump();

    // A second token appears and the run names it instead of the first: the first's rows
    // would stay without being followed. Refused (a run naming both adds the second with a
    // backfill of its own: tst_addsource).
    const lab::DemoToken aaa = lab.tokens().first();
    lab.deployToken("BBB");
    lab.sprayAll(2, 3, 5);
    lab.tokens().removeFirst();
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"});
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QVERIFY2(run.err.contains("environment env indexes contracts " + a) &&
                 run.err.contains("this run leaves out " + a) &&
                 run.err.contains("Nothing was written"),
             qPrintable(run.err));
    QCOMPARE(lab.dump(), dump);

    // The same set goes on; a checkpoint from before schema v3 (no set recorded) adopts the
    // set of the run that finds it.
    lab.tokens() = {aaa};
    lab.exec("UPDATE indexer_checkpoints SET contracts = NULL");
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    QCOMPARE(lab.count("SELECT count(*) FROM indexer_checkpoints WHERE contracts = '" + a + "'"),
             1);
    VERIFY_INVARIANTS(lab, "env");
}

void TestIndexer::badArguments_data()
{
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QStringList base{"index", "--rpc", "http://127.0.0.1:1", "--db", "/tmp/x.sqlite", "--env", "e"};
    QTest::newRow("no contract") << base << "--contract (or --factory) is required";
    QTest::newRow("short address") << base + QStringList{"--contract", "0x1234"} << "--contract";
    QTest::newRow("negative from-block")
        << base + QStringList{"--contract", "0x5fbdb2315678afecb367f032d93f642f64180aa3", "--from-block", "-5"}
        << "negative";
    QTest::newRow("batch size zero")
        << base + QStringList{"--contract", "0x5fbdb2315678afecb367f032d93f642f64180aa3", "--batch-size", "0"}
        << "--batch-size";
    QTest::newRow("not a url")
        << QStringList{"index", "--rpc", "ftp://x", "--db", "/tmp/x.sqlite", "--env", "e", "--contract",
                       "0x5fbdb2315678afecb367f032d93f642f64180aa3"}
        << "--rpc";
    QTest::newRow("missing config") << QStringList{"index", "--config", "/nonexistent.json"}
                                    << "/nonexistent.json";
    QTest::newRow("unreadable abi")
        << base + QStringList{"--contract", "0x5fbdb2315678afecb367f032d93f642f64180aa3", "--abi", "/nonexistent-abi.json"}
        << "/nonexistent-abi.json";
    // clang-format on
}

void TestIndexer::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY), args);
    const ProcessRun r = test::waitForProcess(p, 20000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("forkscope: ") && r.err.contains(mentions), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
}

QTEST_GUILESS_MAIN(TestIndexer)
#include "tst_indexer.moc"
