#pragma once

#include "coord/BackfillClaims.h"
#include "coord/SessionLock.h"
#include "indexer/Coordination.h"

#include <chrono>

namespace forkscope::store::pg {

class PgConnection;

// Coordination among the writers of a shared PostgreSQL environment (indexer::Coordination):
// backfill ranges planned in range_store and leased with SELECT ... FOR UPDATE SKIP LOCKED
// (coord::BackfillClaims), the head led by the holder of a session advisory lock
// (coord::SessionLock), so a killed writer's ranges and role pass on as soon as the server
// sees its session end. On the store's own connection: a range's done mark commits with its
// rows (PgIndexStore::commit).
class PgCoordination : public indexer::Coordination
{
public:
    PgCoordination(PgConnection& db, QString environmentId, qint64 chainId, QString owner,
                   std::chrono::milliseconds lease);
    ~PgCoordination() override;

    void start() override;
    QList<indexer::RangeClaim> claim(const std::optional<indexer::Checkpoint>& cp,
                                     std::uint64_t from, std::uint64_t head, std::uint64_t size,
                                     int depth) override;
    bool rangesOpen(std::uint64_t from) override;
    void keepAlive() override;
    void failed(const indexer::RangeClaim& claim, const QString& error, bool givenUp) override;
    void release() override;
    bool leadsHead() override;
    QString owner() const override { return m_claims.owner(); }

    // After a commit marked `claim` done (PgIndexStore::commit): no longer held.
    void committed(const indexer::RangeClaim& claim);
    // Whether this writer holds `claim` (a commit of a range taken over meanwhile is refused).
    bool holds(const indexer::RangeClaim& claim) const;
    coord::BackfillClaims& claims() { return m_claims; }

private:
    coord::RangeClaim held(const indexer::RangeClaim& claim) const;

    PgConnection& m_db;
    QByteArray m_env;
    QByteArray m_chain;
    coord::BackfillClaims m_claims;
    coord::SessionLock m_headLock;
    std::chrono::milliseconds m_lease;
    QList<indexer::RangeClaim> m_held; // claimed, not yet committed, lowest first
    qint64 m_renewedAt = 0;            // steady-clock ms of the last renewal
};

} // namespace forkscope::store::pg
