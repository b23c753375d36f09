#include "ReindexMatch.h"
#include "store/ReorgEventStore.h"

namespace forkscope::engine {

namespace {
// The key without its transaction hash (the first field).
QString transferOnly(const QString& key)
{
    return key.mid(key.indexOf(QLatin1Char('|')) + 1);
}
} // namespace

void markReindexed(QList<ReorgDiff::Item>& items, const QHash<QString, int>& above)
{
    using Again = ReorgDiff::Item::Again;
    QHash<QString, int> exact = above;
    QHash<QString, int> loose;
    for (auto it = above.constBegin(); it != above.constEnd(); ++it)
        loose[transferOnly(it.key())] += it.value();
    QList<ReorgDiff::Item*> unmatched;
    for (ReorgDiff::Item& item : items) {
        if (item.kind != QLatin1String("transfer_removed"))
            continue;
        const QString key = store::ReorgEventStore::transferKey(item.txHash, item.contract,
                                                                item.from, item.to, item.value);
        int& left = exact[key];
        if (left > 0) {
            --left;
            --loose[transferOnly(key)];
            item.again = Again::SameTransaction;
        } else {
            item.again = Again::No;
            unmatched << &item;
        }
    }
    for (ReorgDiff::Item* item : std::as_const(unmatched)) {
        int& left = loose[store::ReorgEventStore::transferKey(QString(), item->contract, item->from,
                                                              item->to, item->value)
                              .mid(1)];
        if (left > 0) {
            --left;
            item->again = Again::OtherTransaction;
        }
    }
}

} // namespace forkscope::engine
