#include "LabRun.h"

#include "audit/AuditError.h"
#include "audit/ReceiptsLogsProof.h"
#include "foreign/ForeignAuditor.h"
#include "foreign/ForeignError.h"
#include "foreign/ForeignTable.h"
#include "foreign/ForeignValue.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "lab/ForeignIndexer.h"
#include "lab/PgLab.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "rpc/RpcError.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QThread>

namespace forkscope::lab {

namespace {

constexpr int kPollMs = 250;
constexpr int kTransfersPerBlock = 3;
constexpr quint64 kHolders = 24;
constexpr quint64 kReplicaLagBlocks = 5;
// How long the lab waits for an indexer while its node withholds logs: one that waits for
// proof is right, and the audit after the fault clears decides whether it catches up.
constexpr qint64 kWithheldWaitMs = 10000;

const QJsonObject kHealthy{{QStringLiteral("offline"), false},   {QStringLiteral("logCap"), 0},
                           {QStringLiteral("dropLogs"), false},  {QStringLiteral("dropLogRate"), 0},
                           {QStringLiteral("dropBlockRate"), 0}, {QStringLiteral("errorRate"), 0},
                           {QStringLiteral("lagBlocks"), 0}};

QString withoutPassword(const QString& target)
{
    const QUrl url(target);
    return url.scheme().startsWith(QLatin1String("postgres")) ? url.toString(QUrl::RemovePassword)
                                                              : target;
}

} // namespace

struct LabRun::Lab
{
    Devnet devnet;
    std::unique_ptr<rpc::JsonRpcClient> rpc;
    std::unique_ptr<rpc::EthClient> eth;
    QThread proxyThread;
    FaultProxy* node = nullptr;    // what the indexer is given
    FaultProxy* replica = nullptr; // behind by kReplicaLagBlocks, for the balancer
    bool replicaInUse = false;
    bool onReplica = false;
    bool withholding = false; // a fault that withholds logs is on
    std::unique_ptr<PgLab> cluster;
    QString database;
    QList<DemoToken> tokens;
    quint64 sprayOffset = 0;
    ForeignIndexer indexer;
    ForeignIndexer::Options indexerOptions;
    bool indexerUp = false; // started and not killed by the scenario

    ~Lab()
    {
        indexer.stop();
        proxyThread.quit();
        proxyThread.wait();
    }

    // On the proxy's thread, where its server lives; an invalid knob is a bug of the plan.
    void apply(FaultProxy* proxy, const QJsonObject& knobs)
    {
        QString error;
        QMetaObject::invokeMethod(
            proxy, [&] { error = proxy->applyKnobs(knobs); }, Qt::BlockingQueuedConnection);
        if (!error.isEmpty())
            throw DevnetError(QStringLiteral("the scenario set a bad knob: %1").arg(error));
    }

    // A balancer in front of a healthy node and a lagging replica: requests go to one or the
    // other as the lab flips it while it waits.
    void flipBalancer()
    {
        onReplica = replicaInUse && !onReplica;
        apply(node, {{QStringLiteral("upstream"),
                      (onReplica ? replica->url() : devnet.url()).toString()}});
    }
};

LabRun::LabRun(Options options) : m_options(std::move(options)) {}

LabRun::~LabRun() = default;

void LabRun::note(const QString& what)
{
    const LabRunEvent e{QDateTime::currentDateTimeUtc(), what};
    m_result.timeline << e;
    report(e);
}

void LabRun::report(std::optional<LabRunEvent> event)
{
    m_progress.event = std::move(event);
    m_progress.audits = int(m_result.audits.size());
    m_progress.cleanAudits = 0;
    m_progress.findings = 0;
    for (const LabRunAudit& a : m_result.audits) {
        m_progress.cleanAudits += a.clean() ? 1 : 0;
        m_progress.findings += a.result ? a.result->findingCount() : 0;
    }
    if (m_options.onProgress)
        m_options.onProgress(m_progress);
}

bool LabRun::pause(int ms)
{
    if (stopRequested())
        return false;
    // While it should run, the wait is on its process: an exit ends the wait and the run.
    if (m_lab->indexerUp && m_lab->indexer.waitForExit(ms))
        throw ForeignIndexerError(
            QStringLiteral("the indexer exited on its own; its last lines:\n%1")
                .arg(m_lab->indexer.logTail()));
    if (!m_lab->indexerUp)
        QThread::msleep(ms);
    return !stopRequested();
}

void LabRun::setUp()
{
    m_lab = std::make_unique<Lab>();
    Lab& lab = *m_lab;
    lab.devnet.start();
    lab.rpc = std::make_unique<rpc::JsonRpcClient>(lab.devnet.url());
    lab.eth = std::make_unique<rpc::EthClient>(*lab.rpc);
    note(QStringLiteral("anvil at %1").arg(lab.devnet.url().toString()));
    lab.proxyThread.setObjectName(QStringLiteral("forkscope-lab-proxies"));
    lab.proxyThread.start();
    lab.node = startFaultProxyOn(&lab.proxyThread, lab.devnet.url());
    lab.replica = startFaultProxyOn(&lab.proxyThread, lab.devnet.url());
    lab.apply(lab.replica, {{QStringLiteral("lagBlocks"), qint64(kReplicaLagBlocks)}});
    note(QStringLiteral("the indexer's node: a fault proxy at %1").arg(lab.node->url().toString()));

    lab.database = m_options.database;
    if (lab.database.isEmpty()) {
        lab.cluster = std::make_unique<PgLab>();
        lab.cluster->start();
        lab.database = lab.cluster->url();
        note(
            QStringLiteral("a throwaway PostgreSQL cluster for the indexer: %1").arg(lab.database));
    }
    const chain::Address sender = DemoToken::defaultSender(*lab.rpc);
    for (const QString& symbol : {QStringLiteral("AAA"), QStringLiteral("BBB")})
        lab.tokens << DemoToken::deploy(*lab.rpc, sender, symbol + QStringLiteral(" token"), symbol,
                                        chain::U256("1000000000000000000000000"));
    QStringList contracts;
    for (const DemoToken& t : lab.tokens)
        contracts << t.address().toHex();
    note(QStringLiteral("deployed demo tokens %1").arg(contracts.join(QStringLiteral(", "))));

    lab.indexerOptions.command = m_options.indexerCommand;
    lab.indexerOptions.rpc = lab.node->url();
    lab.indexerOptions.contracts = contracts;
    lab.indexerOptions.databaseUrl = lab.database;
    lab.indexer.start(lab.indexerOptions);
    lab.indexerUp = true;
    note(QStringLiteral("indexer started: %1").arg(lab.indexer.command()));

    m_result.node = lab.node->url().toString();
    m_result.database = withoutPassword(lab.database);
}

void LabRun::play(const LabStep& step, int index)
{
    Lab& lab = *m_lab;
    note(QStringLiteral("step %1: %2").arg(index).arg(step.describe()));
    switch (step.action) {
    case LabStep::Action::Transfers:
        lab.sprayOffset = DemoToken::sprayBlocks(*lab.rpc, lab.tokens, step.count,
                                                 kTransfersPerBlock, kHolders, lab.sprayOffset);
        break;
    case LabStep::Action::Reorg: {
        QJsonArray moved;
        if (step.offset >= 0)
            moved.append(QJsonArray{
                lab.tokens.first().txRequest(DemoToken::transferCalldata(
                    DemoToken::sprayHolder(lab.sprayOffset++ % kHolders), chain::U256(7))),
                step.offset});
        lab.rpc->callBlocking(QStringLiteral("anvil_reorg"), {step.count, moved});
        break;
    }
    case LabStep::Action::Fault:
        lab.apply(lab.node, step.knobs);
        lab.withholding = lab.withholding || step.withholdsLogs();
        break;
    case LabStep::Action::ClearFaults:
        lab.apply(lab.node, kHealthy);
        lab.withholding = false;
        break;
    case LabStep::Action::Replica:
        lab.replicaInUse = step.count != 0;
        lab.onReplica = true; // the next flip goes to the healthy node
        lab.flipBalancer();
        break;
    case LabStep::Action::KillIndexer:
        lab.indexer.kill();
        lab.indexerUp = false;
        break;
    case LabStep::Action::StartIndexer:
        lab.indexer.start(lab.indexerOptions);
        lab.indexerUp = true;
        break;
    }
}

LabRunAudit LabRun::waitAndAudit(int index, const QString& steps)
{
    Lab& lab = *m_lab;
    LabRunAudit a;
    a.step = index;
    a.stepDescription = steps;
    a.head = lab.eth->blockNumber();
    const std::uint64_t want =
        a.head >= m_options.confirmations ? a.head - m_options.confirmations : 0;
    std::optional<std::uint64_t> highest; // the table's highest block, last seen
    const qint64 timeout = lab.withholding
                               ? std::min<qint64>(m_options.catchUpTimeoutMs, kWithheldWaitMs)
                               : m_options.catchUpTimeoutMs;
    m_progress.waiting = true;
    m_progress.targetBlock = want;
    m_progress.indexerBlock.reset();
    report(std::nullopt);
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < timeout) {
        try {
            // A new snapshot each time: the table as the indexer has committed it now.
            const auto table = foreign::ForeignTable::open(lab.database);
            const auto span = table->blockSpan(m_options.query);
            QString why;
            const std::optional<std::uint64_t> before = highest;
            if (span)
                highest = foreign::blockNumberOf(span->second, &why);
            if (highest != before) {
                m_progress.indexerBlock = highest;
                report(std::nullopt);
            }
            if (highest && *highest >= want) {
                a.caughtUp = true;
                break;
            }
        } catch (const foreign::ForeignError&) {
            // Its tables may not exist yet while it starts.
        }
        if (lab.replicaInUse)
            lab.flipBalancer();
        if (!pause(kPollMs))
            throw ForeignIndexerError(QStringLiteral("stopped by request"));
    }
    a.waitedMs = waited.elapsed();
    m_progress.waiting = false;
    a.heldBack = !a.caughtUp && lab.withholding;
    note(
        a.caughtUp
            ? QStringLiteral("the indexer reached block %1 after %2 ms").arg(want).arg(a.waitedMs)
            : QStringLiteral("the indexer did not reach block %1 within %2 ms%3")
                  .arg(want)
                  .arg(a.waitedMs)
                  .arg(a.heldBack ? QStringLiteral(", while the node withholds logs") : QString()));
    try {
        const auto table = foreign::ForeignTable::open(lab.database);
        QList<chain::Address> contracts;
        for (const DemoToken& t : lab.tokens)
            contracts << t.address();
        foreign::ForeignAuditor auditor(*table, *lab.eth, contracts);
        audit::ReceiptsLogsProof receipts(*lab.eth);
        if (m_options.receipts)
            auditor.setProof(&receipts);
        // Behind, it is audited up to where it got: "did not catch up" is its own finding,
        // not a Transfer missing from every block it has not reached.
        const std::uint64_t to = a.caughtUp ? want : std::min(want, highest.value_or(0));
        const foreign::ForeignRange range = foreign::ForeignAuditor::resolveRange(
            *table, m_options.query, std::uint64_t(0), to, a.head, m_options.confirmations);
        a.result = auditor.audit(m_options.query, range);
        note(QStringLiteral("audit of blocks 0-%1: %2")
                 .arg(want)
                 .arg(a.result->clean()
                          ? QStringLiteral("clean")
                          : QStringLiteral("%1 findings").arg(a.result->findingCount())));
    } catch (const foreign::ForeignError& e) {
        a.error = e.message();
    } catch (const audit::AuditError& e) {
        a.error = e.message();
    }
    if (!a.error.isEmpty())
        note(QStringLiteral("audit failed: %1").arg(a.error));
    return a;
}

LabRunResult LabRun::run()
{
    m_result = {};
    m_result.scenario = labScenarioName(m_options.scenario);
    m_result.seed = m_options.seed;
    m_result.indexerCommand = m_options.indexerCommand;
    m_result.query = m_options.query;
    const QList<LabStep> plan = planLabScenario(m_options.scenario, m_options.seed);
    m_progress = {};
    m_progress.steps = int(plan.size());
    setUp();
    QStringList since; // the steps since the last audit
    try {
        for (int i = 0; i < plan.size(); ++i) {
            if (stopRequested())
                throw ForeignIndexerError(QStringLiteral("stopped by request"));
            m_progress.step = i + 1;
            play(plan[i], i + 1);
            since << plan[i].describe();
            if (plan[i].audit) {
                m_result.audits << waitAndAudit(i + 1, since.join(QStringLiteral("; ")));
                report(std::nullopt); // the counts with this audit, still at its step
                since.clear();
            }
        }
    } catch (const ForeignIndexerError& e) {
        m_result.aborted = e.message();
    } catch (const DevnetError& e) {
        m_result.aborted = e.message();
    } catch (const rpc::RpcException& e) {
        m_result.aborted =
            QStringLiteral("the lab's anvil did not answer: %1").arg(e.error().toString());
    }
    if (!m_result.aborted.isEmpty())
        note(QStringLiteral("run stopped: %1").arg(m_result.aborted));
    m_lab.reset(); // the indexer, the proxies, the cluster and anvil stop here
    note(QStringLiteral("everything the lab started is stopped"));
    note(m_result.verdictLine());
    return m_result;
}

} // namespace forkscope::lab
