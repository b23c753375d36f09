#pragma once

#include "DbSummary.h"
#include "EngineStatus.h"
#include "SourceList.h"
#include "SourceSpec.h"
#include "TablePage.h"
#include "concurrency/LoopThread.h"
#include "forktree/ForkBlockRows.h"
#include "forktree/ForkTreeSnapshot.h"
#include "report/CheckpointReport.h"

#include <QMutex>
#include <QObject>
#include <QSet>
#include <QUrl>
#include <chrono>
#include <memory>
#include <optional>

namespace forkscope::engine {

// Every read the window asks for: table pages, reorg diffs, checkpoint reports, and the
// once-a-second summary of the live environment. On a LoopThread of its own with a
// read-only connection to either store (store::ReadOnlyStore), so a read never waits
// behind a step, sees only committed rows, and can never write. A connection that fails a
// read is opened again on the next step. Answers are values; a report carries the
// caller's ticket.
class ReadService : public QObject
{
    Q_OBJECT
public:
    // `dbPath`: a SQLite file or a postgresql:// URL, as --db takes it.
    explicit ReadService(QString dbPath, QObject* parent = nullptr);
    ~ReadService() override;

    void start();
    void requestStop();
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    concurrency::LoopThread::Stats stats() const { return m_thread.stats(); }
    // Tokens whose decimals() and symbol() one table page may read (two calls each).
    static constexpr int kMaxTokenReadsPerPage = 8;
    // And the time they may take together, per page.
    static constexpr std::chrono::milliseconds kTokenReadBudget{2000};
    // The tokens of `page` whose metadata is not `known` yet: distinct, in page order, at
    // most `max`.
    static QStringList tokensToRead(const TablePage& page, const QSet<QString>& known, int max);
    // The same of a list of token addresses.
    static QStringList tokensToRead(const QStringList& tokens, const QSet<QString>& known, int max);
    // Environments whose token metadata is remembered once they are no longer live (a lab
    // reset archives one): their windows show amounts as they were shown while live.
    static constexpr int kRememberedEnvironments = 32;
    static constexpr int kRememberedTokens = 1000; // per environment

    // Commands, from any thread.
    // The live environment: the summary follows it; empty requests read it.
    // `node` answers decimals() and symbol() for the tokens of that environment's pages.
    void setScope(const QString& environmentId, quint64 chainId, const QUrl& node = {});
    void refreshNow();
    void requestTablePage(const forkscope::engine::TableRequest& request);
    void requestReorgDiff(qint64 id);
    // The live environment's fork tree over a window (forktree/ForkTreeReader.h). Requests
    // made while one is read replace each other: only the latest is read next.
    void requestForkTree(const forkscope::forktree::ForkTreeRequest& request);
    // The rows of one block (forktree/ForkBlockReader.h); a block of a window this service
    // answered is found by its number, any other by its hash alone.
    void requestForkBlock(const forkscope::chain::Hash32& hash);
    // The live environment's sources and the factories' children (the Contracts tab).
    void requestSourceList();
    // Whether the live environment's node has code at `address` (the Add contract and Add
    // factory dialogs); answered by codeChecked with `ticket`.
    void requestCodeCheck(quint64 ticket, const QString& address);
    // How long that may take.
    static constexpr std::chrono::milliseconds kCodeCheckTimeout{5000};
    // With `verify`, each checkpoint is re-checked against `node`.
    void requestReport(quint64 ticket, const QString& environmentId, bool verify, const QUrl& node,
                       std::chrono::milliseconds rpcTimeout);

signals:
    void summaryAvailable(const forkscope::engine::DbSummary& summary);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void forkTreeAvailable(const forkscope::forktree::ForkTreeSnapshot& tree);
    void forkBlockAvailable(const forkscope::forktree::ForkBlockRows& rows);
    void sourceListAvailable(const forkscope::engine::SourceList& sources);
    void codeChecked(const forkscope::engine::CodeCheck& check);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);
    void logMessage(const QString& level, const QString& text);
    void stopped();

private:
    struct Loop;
    int step();
    bool ensureOpen();
    void refreshSummary();
    void addTokens(TablePage& page);
    // The report's amounts in the tokens' units: decimals() and symbol() of the contracts its
    // diff items name, from the live environment's cache or read from `node` (bounded as a
    // table page's reads are).
    void addReportTokens(report::CheckpointReport& r, const QUrl& node);
    void addTokens(ReorgDiff& diff);
    // The metadata of `tokens` known for the live environment, reading (a few, within the
    // budget) those not asked yet.
    QHash<QString, chain::TokenInfo> readTokens(const QStringList& tokens);

    QString m_dbPath;
    // The latest fork tree request not read yet (any thread), and whether a read is queued.
    QMutex m_forkTreeMutex;
    std::optional<forktree::ForkTreeRequest> m_forkTreeNext;
    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
};

} // namespace forkscope::engine
