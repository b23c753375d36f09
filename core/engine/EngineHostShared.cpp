// EngineHost on a shared PostgreSQL index: the app watches what `forkscope index` processes
// (anywhere) write, by LISTEN/NOTIFY, and never writes itself. The lab controls act on a
// devnet this app manages; here none is, so they are refused and the refusal says why.
#include "DbSummary.h"
#include "EngineHostSession.h"
#include "SharedIndexWatcher.h"

#include <QUrl>

namespace forkscope::engine {

namespace {
// Marks the tickets of the verdict's own reports, apart from the window's (which count up
// from 1 and never reach it).
constexpr quint64 kVerdictTicket = quint64(1) << 63;
} // namespace

void EngineHost::startShared(Session* s)
{
    const EngineConfig& c = s->config;
    const QString display = QUrl(c.dbPath).toString(QUrl::RemovePassword);
    m_status.dbPath = display;
    m_status.managedDevnet = false;
    m_status.labReady = false;
    m_status.endpoint.clear();
    // The outbox of a shared index is delivered by its `forkscope index` processes (the one
    // holding the outbox lock, with its own --webhook), never by this window: the panel
    // shows their backlog and deliveries, not "no sink configured" from this app's settings.
    m_status.outboxSink = QStringLiteral("the forkscope index processes");
    SharedIndexWatcher::Options o;
    o.url = c.dbPath;
    o.environmentId = c.indexer.environmentId; // empty: the newest live one
    o.healthNodes = c.nodes;
    if (o.healthNodes.isEmpty() && !c.managedDevnet && c.rpcUrl.isValid())
        o.healthNodes = {c.rpcUrl};
    s->shared = std::make_unique<SharedIndexWatcher>(o);
    const auto live = [this, s] { return m_session.get() == s; };
    SharedIndexWatcher* w = s->shared.get();
    connect(w, &SharedIndexWatcher::attached, this,
            [this, s, live, display](const QString& env, quint64 chainId, const QUrl& node) {
                if (!live())
                    return;
                const bool first = s->liveEnvironment.isEmpty();
                s->liveEnvironment = env;
                s->chainId = chainId;
                m_status.connection = EngineStatus::Connection::Connected;
                m_status.message.clear();
                m_status.environmentId = env;
                m_status.chainId = chainId;
                m_status.endpoint = node.toString(QUrl::RemoveUserInfo);
                m_status.indexerState = QStringLiteral("watching");
                if (first)
                    log(QStringLiteral("info"),
                        QStringLiteral("watching environment %1 (chain %2) in the shared "
                                       "database %3: `forkscope index` processes write it, "
                                       "this window follows their commits as they are "
                                       "announced; the lab controls are off")
                            .arg(env)
                            .arg(chainId)
                            .arg(display));
                publishSoon();
            });
    connect(w, &SharedIndexWatcher::summaryAvailable, this, [this, s, live](const DbSummary& d) {
        if (!live())
            return;
        if (m_status.checkpoint != d.checkpoint)
            m_status.lastCommitAt = QDateTime::currentDateTimeUtc();
        m_status.checkpoint = d.checkpoint;
        m_status.reorgs = d.recentReorgs.size();
        onSummary(s, d);
        // A failed range made this "data incomplete" (onSummary); once it is stored, back
        // to watching.
        if (d.openAlerts.isEmpty() && m_status.indexerState == QLatin1String("data incomplete"))
            m_status.indexerState = QStringLiteral("watching");
    });
    connect(w, &SharedIndexWatcher::healthAvailable, this,
            [this, live](const health::HealthSnapshot& h) {
                if (!live())
                    return;
                m_status.health = h;
                // The head the lag is measured against: the environment's node's.
                for (const health::NodeHealth& n : h.nodes)
                    if (n.url == m_status.endpoint && n.head)
                        m_status.headBlock = n.head;
                publishSoon();
            });
    connect(w, &SharedIndexWatcher::databaseLost, this, [this, live](const QString& message) {
        if (!live())
            return;
        // Never a healthy-looking index over a database we cannot read.
        m_status.connection = EngineStatus::Connection::Failed;
        m_status.message = message;
        publishSoon();
    });
    connect(w, &SharedIndexWatcher::tablePageAvailable, this, [this, live](const TablePage& page) {
        if (live())
            emit tablePageAvailable(page);
    });
    connect(w, &SharedIndexWatcher::reorgDiffAvailable, this, [this, live](const ReorgDiff& diff) {
        if (live())
            emit reorgDiffAvailable(diff);
    });
    // Reports the window asked for go to it; the verdict's own (their tickets carry
    // kVerdictTicket) become the lab's badge.
    connect(w, &SharedIndexWatcher::reportAvailable, this,
            [this, live](quint64 ticket, const report::CheckpointReport& r) {
                if (!(ticket & kVerdictTicket)) {
                    emit reportAvailable(ticket, r);
                    return;
                }
                if (!live() || ticket != (kVerdictTicket | m_verdictTickets))
                    return; // an older check's answer
                using State = InvariantVerdict::State;
                m_status.verdict.state =
                    r.invariants.state == report::InvariantState::Hold       ? State::Holds
                    : r.invariants.state == report::InvariantState::Violated ? State::Violated
                                                                             : State::Unavailable;
                m_status.verdict.summary = r.invariants.summary;
                m_status.verdict.at = QDateTime::currentDateTimeUtc();
                log(m_status.verdict.state == State::Holds ? QStringLiteral("ok")
                                                           : QStringLiteral("fail"),
                    QStringLiteral("invariants after %1: %2")
                        .arg(m_status.verdict.action, r.invariants.summary));
                publishSoon();
            });
    connect(w, &SharedIndexWatcher::reportFailed, this,
            [this, live](quint64 ticket, const QString& error) {
                if (!(ticket & kVerdictTicket)) {
                    emit reportFailed(ticket, error);
                    return;
                }
                if (!live() || ticket != (kVerdictTicket | m_verdictTickets))
                    return;
                m_status.verdict.state = InvariantVerdict::State::Unavailable;
                m_status.verdict.summary = QStringLiteral("could not check: %1").arg(error);
                m_status.verdict.at = QDateTime::currentDateTimeUtc();
                publishSoon();
            });
    connect(w, &SharedIndexWatcher::logMessage, this, &EngineHost::logMessage);
    connect(w, &SharedIndexWatcher::stopped, this, &EngineHost::reap);
    w->start();
    publishSoon();
}

void EngineHost::checkSharedInvariants(const QString& action)
{
    // The same four invariants the lab checks, read from the views in one snapshot and
    // compared with the environment's node (report::ReportSections::checkInvariants). No
    // waiting for the indexer: the checkpoint is what the processes committed.
    m_status.verdict = {InvariantVerdict::State::Checking, action,
                        QStringLiteral("checking the shared index against its node"),
                        QDateTime::currentDateTimeUtc()};
    publishSoon();
    m_session->shared->requestReport(kVerdictTicket | ++m_verdictTickets, QString(), true,
                                     m_config.indexer.rpcTimeout);
}

bool EngineHost::refuseOnShared(const QString& action)
{
    if (!m_session || !m_session->shared)
        return false;
    log(QStringLiteral("error"),
        QStringLiteral("%1 is refused: environment %2 lives in the shared database %3 and is "
                       "indexed by `forkscope index` processes against %4, a devnet this app "
                       "does not manage. The lab acts only on its own managed anvil: open a "
                       "SQLite database (File > Open database...) for the lab")
            .arg(action,
                 m_status.environmentId.isEmpty() ? QStringLiteral("(not known yet)")
                                                  : m_status.environmentId,
                 m_status.dbPath,
                 m_status.endpoint.isEmpty() ? QStringLiteral("its node") : m_status.endpoint));
    return true;
}

} // namespace forkscope::engine
