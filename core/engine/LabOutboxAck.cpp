// The outbox's lost acknowledgement, one click in the Lab menu: the lab's own receiver
// (lab::LabSink) applies the next new row and drops its answer, the dispatcher sends it again
// with the same key, and the verdict says whether the row arrived twice, was applied once,
// and is marked delivered once in the database.
#include "LabController.h"
#include "LabControllerLoop.h"
#include "lab/DemoToken.h"
#include "lab/LabSink.h"
#include "store/ReadOnlyStore.h"
#include "text/Count.h"

#include <QJsonArray>

namespace forkscope::engine {

namespace {
constexpr std::chrono::seconds kOutboxAckWait{60};
const QString kAction = QStringLiteral("lose the next outbox acknowledgement");
} // namespace

void LabController::loseNextOutboxAcknowledgement()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!available(kAction))
            return;
        if (!m_config.webhook.isEmpty()) {
            // The lab judges what its own receiver saw; a sink of the user's is not its to
            // break or to read.
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: the outbox delivers to %2; the scenario needs the "
                                           "lab's own receiver (remove the webhook in Settings)")
                                .arg(kAction, m_config.webhook.toString(QUrl::RemoveUserInfo)));
            return;
        }
        try {
            if (!l.sink) {
                if (!l.proxyThread.isRunning())
                    l.proxyThread.start(new QObject);
                l.sink = lab::startLabSinkOn(l.proxyThread.thread());
                l.snap.labSinkUrl = l.sink->url().toString();
                emit logMessage(QStringLiteral("info"),
                                QStringLiteral("lab: the outbox now delivers to the lab's own "
                                               "receiver at %1, which applies each event once by "
                                               "its key")
                                    .arg(l.snap.labSinkUrl));
            }
            l.sink->loseNextAcknowledgement();
            // A row to deliver: a transfer, and blocks above it for its confirmations.
            if (l.demo && !l.snap.demoTraffic) {
                l.demo->spray(1, l.demoOffset++, 50);
                l.anvil->callBlocking(QStringLiteral("anvil_mine"),
                                      QJsonArray{QStringLiteral("0x%1").arg(
                                          m_config.indexer.confirmations + 1, 0, 16)});
            }
            l.outboxAckUntil = QDeadlineTimer(kOutboxAckWait);
            l.outboxAckChecked = false;
            l.verdictAction.clear(); // settled by outboxAckStep, not by a catch-up alone
            l.snap.verdict = {InvariantVerdict::State::Checking, kAction,
                              QStringLiteral("waiting for the outbox to deliver a row, lose its "
                                             "acknowledgement and send it again"),
                              QDateTime::currentDateTimeUtc()};
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("lab: the lab's receiver will apply the next new "
                                           "outbox row and drop its answer; the dispatcher must "
                                           "send it again with the same key"));
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: %2").arg(kAction, QString::fromUtf8(e.what())));
        }
        publish();
        m_thread.wake();
    });
}

void LabController::outboxAckStep()
{
    Loop& l = *m_loop;
    if (!l.outboxAckUntil || !l.sink)
        return;
    const lab::LabSink::Stats st = l.sink->stats();
    const bool resent = !st.lostKey.isEmpty() && st.lostKeyArrivals >= 2;
    if (!resent && !l.outboxAckUntil->hasExpired())
        return;
    l.outboxAckUntil.reset();
    l.outboxAckChecked = true;
    // The invariants and the outbox line together, once the indexer has caught up.
    dueVerdict(kAction);
    publish();
}

QString LabController::outboxAckCheck(bool* ok)
{
    Loop& l = *m_loop;
    *ok = false;
    if (!l.sink)
        return QStringLiteral("outbox: the lab's receiver is gone");
    const lab::LabSink::Stats st = l.sink->stats();
    if (st.lostKey.isEmpty())
        return QStringLiteral("outbox: no row reached the lab's receiver within %1 s (is the "
                              "outbox waiting for confirmations?)")
            .arg(kOutboxAckWait.count());
    qint64 rows = 0;
    qint64 delivered = 0;
    // Part of the verdict: it opened the read-only store, and a failure here is its
    // "could not check".
    const auto q = l.truth->reader().query(
        QStringLiteral("SELECT count(*), count(delivered_at) FROM outbox WHERE "
                       "environment_id = ? AND event_key = ?"),
        {l.environmentId, QString::fromUtf8(st.lostKey)});
    if (q->next()) {
        rows = q->value(0).toLongLong();
        delivered = q->value(1).toLongLong();
    }
    const int arrivals = l.sink->arrivals(st.lostKey);
    *ok = arrivals >= 2 && rows == 1 && delivered == 1;
    return QStringLiteral("outbox: row %1 was applied by the receiver and its acknowledgement "
                          "lost; it arrived %2 times with the same key, was applied once, and "
                          "the database has %3 for it, %4 marked delivered%5")
        .arg(QString::fromUtf8(st.lostKey))
        .arg(arrivals)
        .arg(text::count(rows, QStringLiteral("row"), QStringLiteral("rows")))
        .arg(delivered)
        .arg(*ok ? QString()
                 : QStringLiteral(" (expected 2 or more arrivals, 1 row, 1 delivered)"));
}

} // namespace forkscope::engine
