#pragma once

#include "indexer/InvariantChecker.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "rpc/EthClient.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTemporaryDir>
#include <QVariantList>
#include <memory>

namespace forkscope::store {
class ReadOnlyStore;
}

namespace forkscope::test {

struct ProcessRun
{
    int exitCode = -1;
    QProcess::ExitStatus exitStatus = QProcess::NormalExit;
    QString out;
    QString err;
    bool finished = false;
    QString describe() const;
};

// A lab for indexer tests: a fresh anvil, a database (a temporary SQLite file, or a
// PostgreSQL database a StoreRows row made for it), deployed DemoTokens, and helpers to drive
// `forkscope index` as a user would (as a separate process) and to check the result against
// the node independently of the indexer's own code. Every read goes through the store's
// contract surface (store::ReadOnlyStore), so the same checks run on either store.
class IndexerLab
{
public:
    explicit IndexerLab(const lab::Devnet::Options& options = {});
    // `db`: the --db of the store to use; empty: the lab's own SQLite file.
    explicit IndexerLab(const QString& db, const lab::Devnet::Options& options = {});
    ~IndexerLab();

    lab::Devnet& devnet() { return *m_devnet; }
    rpc::JsonRpcClient& rpc() { return *m_rpc; }
    rpc::EthClient& eth() { return *m_eth; }
    // The lab's own SQLite file (what db() is unless the lab was given another store).
    QString dbPath() const { return m_dir.filePath(QStringLiteral("lab.sqlite")); }
    // The store, as --db takes it.
    QString db() const { return m_db.isEmpty() ? dbPath() : m_db; }
    bool onPostgres() const;
    // The store the following runs and reads use (empty: the lab's own SQLite file): one
    // chain indexed into each store in turn.
    void setDb(const QString& db) { m_db = db; }
    QString tempPath(const QString& name) const { return m_dir.filePath(name); }

    lab::DemoToken& deployToken(const QString& symbol);
    QList<chain::Address> contracts() const;
    QStringList contractArgs() const;
    QList<lab::DemoToken>& tokens() { return m_tokens; }

    // `txs` spray transactions per token (each `perTx` transfers over `holders` holders),
    // sent as JSON-RPC batches; with automine each is mined promptly.
    void sprayAll(int txs, int perTx, int holders);
    void mine(int blocks);
    // anvil_reorg: replaces the last `depth` blocks; `reinclude` transactions are mined
    // into the new branch at the given block offsets.
    void reorg(int depth, const QList<QPair<QJsonObject, int>>& reinclude = {});

    // Runs `forkscope index --rpc <url> --db <db> --env <env> --contract ...` plus extra args,
    // waiting with the event loop running (so in-process proxies keep serving).
    ProcessRun
    runIndex(const QString& env, const QStringList& extra, const QUrl& rpcUrl = {},
             const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
             int timeoutMs = 120000);
    QStringList indexArgs(const QString& env, const QStringList& extra,
                          const QUrl& rpcUrl = {}) const;

    // The engine's own checker (against the node) plus an independent balance check
    // computed here from the node's logs. Returns an empty list when all is well.
    QStringList verify(const QString& env);

    // A logical dump of every table (sorted rows), to prove "nothing was changed".
    QString dump() const;
    // Read through the contract's surface of the store (`?` placeholders on both).
    qint64 count(const QString& sql, const QVariantList& args = {}) const;
    // The first column of the first row, as text (empty when there is no row).
    QString text(const QString& sql, const QVariantList& args = {}) const;
    // Every row, its columns as text joined by '|' (NULL as "NULL").
    QStringList rows(const QString& sql, const QVariantList& args = {}) const;
    // A statement that writes, as a user would run it by hand on the store (fixed text).
    void exec(const QString& sql) const;
    // The SQL for the text of `key` in the JSON text `column`, in the store's dialect.
    QString jsonText(const QString& column, const QString& key) const;
    // The environment's checkpoint block, -1 while there is none: also while an indexer
    // that was just started has not yet created the file or finished its migrations.
    qint64 checkpointOf(const QString& env) const;
    // The checkpoint is the node's head: its height and its hash (not the height alone).
    bool checkpointOnTheNodesHead(const QString& env);

private:
    // What each read reads through: a SQLite file opened anew each time (a file held open
    // here would make `repair` refuse it as in use), one PostgreSQL connection kept (it sees
    // every commit, and opening one checks the whole contract again).
    std::shared_ptr<store::ReadOnlyStore> readStore() const;

    QTemporaryDir m_dir;
    QString m_db;
    mutable std::shared_ptr<store::ReadOnlyStore> m_pgReader;
    mutable QString m_pgReaderDb;
    std::unique_ptr<lab::Devnet> m_devnet;
    std::unique_ptr<rpc::JsonRpcClient> m_rpc;
    std::unique_ptr<rpc::EthClient> m_eth;
    QList<lab::DemoToken> m_tokens;
    chain::Address m_sender;
    quint64 m_sprayOffset = 0;
};

ProcessRun waitForProcess(QProcess& p, int timeoutMs);

// Runs the forkscope executable with `args`, the event loop running while it works (so
// servers in the test process, e.g. RawHttpServer or a FaultProxy, keep answering).
ProcessRun
runForkscope(const QStringList& args,
             const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
             int timeoutMs = 120000);

// Three "nodes" in front of one anvil: one healthy, one serving the chain 5 blocks back,
// one offline; the classic disagreement the ready-ratio gate is for.
struct ThreeNodes
{
    explicit ThreeNodes(const QUrl& upstream);
    lab::FaultProxy good;
    lab::FaultProxy lagging;
    lab::FaultProxy dead;
};

} // namespace forkscope::test

// A `forkscope` run (ProcessRun) that finished normally with exit code 0; otherwise the
// failure message carries its exit status and output.
// The command failed with `code` and said so in one line, "forkscope: ...", naming each of
// `mentions`.
#define VERIFY_ONE_ERROR_LINE(run, code, mentions)                                                 \
    do {                                                                                           \
        const ::forkscope::test::ProcessRun& r_ = (run);                                           \
        QVERIFY2(r_.finished&& r_.exitCode == (code), qPrintable(r_.describe()));                  \
        const QStringList lines_ = r_.err.trimmed().split('\n');                                   \
        QCOMPARE(lines_.size(), 1);                                                                \
        QVERIFY2(lines_[0].startsWith("forkscope: "), qPrintable(r_.err));                         \
        for (const QString& m_ : (mentions))                                                       \
            QVERIFY2(lines_[0].contains(m_), qPrintable(m_ + " not in: " + r_.err));               \
    } while (0)

#define VERIFY_EXIT_OK(run)                                                                        \
    do {                                                                                           \
        const ::forkscope::test::ProcessRun& r_ = (run);                                           \
        QVERIFY2(r_.finished&& r_.exitStatus == QProcess::NormalExit && r_.exitCode == 0,          \
                 qPrintable(r_.describe()));                                                       \
    } while (0)
