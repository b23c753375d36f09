#include "SourceListReader.h"
#include "store/ContractReader.h"
#include "wire/FactorySource.h"

#include <QHash>
#include <QSet>

namespace forkscope::engine {

namespace {

// The contracts and factories added to the environment and still in their own backfill,
// each with its own checkpoint, after the sources it indexes.
void appendBackfilling(store::ContractReader& reader, const QVariantList& scope,
                       const QHash<QString, qint64>& childCount, SourceList& out)
{
    quint64 joinAt = 0;
    for (const SourceList::Source& s : std::as_const(out.sources))
        joinAt = std::max(joinAt, s.checkpoint);
    for (auto q = reader.query(
             QStringLiteral("SELECT contract, start_block, block_number, "
                            "factory_rule FROM contract_sources WHERE environment_id = ? AND "
                            "chain_id = ? AND state = 'pending' ORDER BY "
                            "contract"),
             scope);
         q->next();) {
        SourceList::Source s;
        s.address = q->value(0).toString().toLower();
        s.startBlock = q->value(1).toULongLong();
        s.backfilling = true;
        s.hasCheckpoint = !q->value(2).isNull();
        s.checkpoint = s.hasCheckpoint ? q->value(2).toULongLong() : 0;
        s.joinAt = joinAt;
        if (const auto factory = wire::FactorySource::fromRuleText(q->value(3).toString())) {
            s.kind = SourceList::Kind::Factory;
            s.event = factory->event().declaration();
            s.childArg = factory->childArg();
            s.children = childCount.value(s.address); // found so far by its backfill
        }
        out.sources.append(s);
    }
}

} // namespace

SourceList readSourceList(store::ContractReader& reader, const QString& environmentId,
                          quint64 chainId, int maxChildren)
{
    const auto snapshot = reader.snapshot(); // the checkpoints and the children: one state
    SourceList out;
    out.environmentId = environmentId;
    const QVariantList scope{environmentId, qint64(chainId)};
    QHash<QString, qint64> childCount;
    for (auto q = reader.query(QStringLiteral("SELECT factory, count(*) FROM factory_children "
                                              "WHERE environment_id = ? AND chain_id = ? GROUP "
                                              "BY factory"),
                               scope);
         q->next();)
        childCount.insert(q->value(0).toString(), q->value(1).toLongLong());
    for (auto q = reader.query(QStringLiteral("SELECT source_id, block_number, start_block, "
                                              "contracts FROM indexer_checkpoints WHERE "
                                              "environment_id = ? AND chain_id = ? ORDER BY "
                                              "source_id"),
                               scope);
         q->next();) {
        SourceList::Source base;
        base.sourceId = q->value(0).toString();
        base.checkpoint = q->value(1).toULongLong();
        base.startBlock = q->value(2).toULongLong();
        for (const QString& token :
             q->value(3).toString().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            SourceList::Source s = base;
            if (const auto factory = wire::FactorySource::fromRuleText(token)) {
                s.kind = SourceList::Kind::Factory;
                s.address = factory->factory().toHex();
                s.event = factory->event().declaration();
                s.childArg = factory->childArg();
                s.children = childCount.value(s.address);
            } else {
                s.address = token.toLower();
            }
            out.sources.append(s);
        }
    }
    // The set records a factory's address beside its rule (its own logs are fetched with
    // the contracts'): one row, the factory's.
    QSet<QString> factories;
    for (const SourceList::Source& s : std::as_const(out.sources))
        if (s.kind == SourceList::Kind::Factory)
            factories.insert(s.sourceId + QLatin1Char('/') + s.address);
    out.sources.removeIf([&](const SourceList::Source& s) {
        return s.kind == SourceList::Kind::Contract &&
               factories.contains(s.sourceId + QLatin1Char('/') + s.address);
    });
    appendBackfilling(reader, scope, childCount, out);
    for (auto q = reader.query(QStringLiteral("SELECT factory, child, block_number, log_index, "
                                              "tx_hash FROM factory_children WHERE "
                                              "environment_id = ? AND chain_id = ? ORDER BY "
                                              "block_number, log_index LIMIT ?"),
                               {environmentId, qint64(chainId), maxChildren + 1});
         q->next();) {
        if (out.children.size() == maxChildren) {
            out.childrenTruncated = true;
            break;
        }
        out.children.append({q->value(0).toString(), q->value(1).toString(),
                             q->value(2).toULongLong(), q->value(3).toULongLong(),
                             q->value(4).toString()});
    }
    return out;
}

} // namespace forkscope::engine
