// EngineHost's foreign indexer watches ("Watch another indexer..."): checked and refused
// here, carried out by the session's ForeignWatchService against the lab's node.
#include "EngineHostSession.h"
#include "chain/ChainParseError.h"
#include "store/OpenStore.h"

namespace forkscope::engine {

void EngineHost::refuseForeignWatch(quint64 id, const QString& target, const QString& why)
{
    foreign::ForeignWatchSnapshot s;
    s.id = id;
    s.state = foreign::ForeignWatchSnapshot::State::Refused;
    s.target = store::describeDatabase(target); // never a password
    s.problem = why;
    s.at = QDateTime::currentDateTimeUtc();
    log(QStringLiteral("error"), QStringLiteral("watch another indexer: %1").arg(why));
    // Queued, as every answer: the caller stores the id before the answer arrives.
    QMetaObject::invokeMethod(
        this, [this, s] { emit foreignWatchAvailable(s); }, Qt::QueuedConnection);
}

void EngineHost::startForeignWatches(Session* s)
{
    s->foreign = std::make_unique<ForeignWatchService>();
    // Not filtered by session: ids are unique across sessions, and a retired session's
    // last snapshots say its watches ended with the engine.
    connect(s->foreign.get(), &ForeignWatchService::snapshotAvailable, this,
            &EngineHost::foreignWatchAvailable);
    connect(s->foreign.get(), &ForeignWatchService::blockAvailable, this,
            &EngineHost::foreignBlockAvailable);
    connect(s->foreign.get(), &ForeignWatchService::stopped, this, &EngineHost::reap);
    s->foreign->start();
}

quint64 EngineHost::watchForeignIndexer(const foreign::ForeignWatchSpec& spec)
{
    const quint64 id = m_nextTicket++;
    if (const QString why = foreign::validateWatchSpec(spec); !why.isEmpty()) {
        refuseForeignWatch(id, spec.target, why);
        return id;
    }
    // The node is known once the environment is (onLabReady), managed lab or not.
    if (!m_session || m_session->liveEnvironment.isEmpty() || m_resetting ||
        m_status.endpoint.isEmpty()) {
        refuseForeignWatch(id, spec.target,
                           QStringLiteral("the engine has no node yet: start it (or wait until "
                                          "it is connected) and watch again"));
        return id;
    }
    QList<chain::Address> contracts;
    for (const QString& c : spec.contracts)
        contracts << chain::Address::fromHex(c.trimmed().toLower(), QStringLiteral("contract"));
    if (contracts.isEmpty())
        contracts = m_session->setup.contracts;
    if (!m_session->foreign)
        startForeignWatches(m_session.get());
    m_session->foreign->watch(id, spec, QUrl(m_status.endpoint), contracts);
    log(QStringLiteral("info"), QStringLiteral("watching another indexer: %1 against %2")
                                    .arg(store::describeDatabase(spec.target), m_status.endpoint));
    return id;
}

void EngineHost::stopWatchingForeignIndexer(quint64 id)
{
    if (m_session && m_session->foreign)
        m_session->foreign->stopWatching(id);
}

void EngineHost::requestForeignBlock(quint64 watchId, quint64 block)
{
    if (m_session && m_session->foreign) {
        m_session->foreign->requestBlock(watchId, block);
        return;
    }
    foreign::ForeignBlockView v;
    v.watchId = watchId;
    v.block = block;
    v.error = QStringLiteral("the watch has ended with the engine: watch the indexer again");
    QMetaObject::invokeMethod(
        this, [this, v] { emit foreignBlockAvailable(v); }, Qt::QueuedConnection);
}

} // namespace forkscope::engine
