#include "ForeignComparison.h"

#include <QMap>

namespace forkscope::foreign {

namespace {

QString transferText(const NodeTransfer& t)
{
    return QStringLiteral("from %1 to %2 value %3")
        .arg(t.from.toHex(), t.to.toHex(), chain::u256::toDecimal(t.value));
}

ForeignFinding about(ForeignFinding::Kind kind, std::uint64_t block, const NodeTransfer& t)
{
    ForeignFinding f;
    f.kind = kind;
    f.block = block;
    f.logIndex = t.logIndex;
    f.txHash = t.txHash.toHex();
    f.contract = t.contract.toHex();
    return f;
}

ForeignFinding about(ForeignFinding::Kind kind, std::uint64_t block, const ForeignRow& r)
{
    ForeignFinding f;
    f.kind = kind;
    f.block = block;
    f.logIndex = r.logIndex;
    f.txHash = r.txHash ? r.txHash->toHex() : QString();
    f.contract = r.contract.toHex();
    f.row = r.label;
    return f;
}

// The row's fields that are not the Transfer's, with what each holds against the chain.
void differences(const ForeignRow& r, const NodeTransfer& t, QStringList* fields,
                 QStringList* detail)
{
    const auto differ = [&](const QString& field, const QString& stored, const QString& node) {
        *fields << field;
        *detail << QStringLiteral("%1 %2 (the chain's %3)").arg(field, stored, node);
    };
    if (r.contract != t.contract)
        differ(QStringLiteral("contract"), r.contract.toHex(), t.contract.toHex());
    if (r.txHash && *r.txHash != t.txHash)
        differ(QStringLiteral("tx_hash"), r.txHash->toHex(), t.txHash.toHex());
    if (r.from && *r.from != t.from)
        differ(QStringLiteral("from"), r.from->toHex(), t.from.toHex());
    if (r.to && *r.to != t.to)
        differ(QStringLiteral("to"), r.to->toHex(), t.to.toHex());
    if (r.value && *r.value != t.value)
        differ(QStringLiteral("value"), chain::u256::toDecimal(*r.value),
               chain::u256::toDecimal(t.value));
}

} // namespace

QList<ForeignFinding> compareForeignBlock(std::uint64_t block, const chain::Hash32& canonicalHash,
                                          const QList<ForeignRow>& rows,
                                          const QList<NodeTransfer>& transfers)
{
    QList<ForeignFinding> out;
    QMap<std::uint64_t, QList<const ForeignRow*>> byIndex; // ordered: findings in log order
    for (const ForeignRow& r : rows) {
        const QString canonical = canonicalHash.toHex();
        const bool otherHash = r.blockHash && *r.blockHash != canonicalHash;
        const bool otherPrefix = !r.blockHashPrefix.isEmpty() &&
                                 !QStringView(canonical).mid(2).startsWith(r.blockHashPrefix);
        if (otherHash || otherPrefix) {
            ForeignFinding f = about(ForeignFinding::Kind::Orphaned, block, r);
            f.detail = QStringLiteral("is of block %1, not the canonical %2: a block a reorg "
                                      "replaced, still stored")
                           .arg(otherHash ? r.blockHash->toHex()
                                          : QStringLiteral("0x%1...").arg(r.blockHashPrefix),
                                canonical);
            out << f;
            continue;
        }
        if (!r.logIndex) {
            ForeignFinding f = about(ForeignFinding::Kind::Extra, block, r);
            f.detail = QStringLiteral("its transaction has no Transfer of the audited contracts "
                                      "at tx_position %1")
                           .arg(*r.txPosition);
            out << f;
            continue;
        }
        byIndex[*r.logIndex].append(&r);
    }
    QMap<std::uint64_t, const NodeTransfer*> node;
    for (const NodeTransfer& t : transfers)
        node.insert(t.logIndex, &t);

    for (auto it = node.cbegin(); it != node.cend(); ++it) {
        const NodeTransfer& t = **it;
        const auto stored = byIndex.constFind(it.key());
        if (stored == byIndex.cend()) {
            ForeignFinding f = about(ForeignFinding::Kind::Missing, block, t);
            f.detail = transferText(t);
            out << f;
            continue;
        }
        if (stored->size() > 1) {
            ForeignFinding f = about(ForeignFinding::Kind::Duplicated, block, t);
            QStringList labels;
            for (const ForeignRow* r : *stored)
                labels << r->label;
            f.row = labels.join(QStringLiteral("; "));
            f.detail =
                QStringLiteral("%1 rows for one Transfer: %2").arg(stored->size()).arg(f.row);
            out << f;
        }
        for (const ForeignRow* r : *stored) {
            QStringList fields, detail;
            differences(*r, t, &fields, &detail);
            if (fields.isEmpty())
                continue;
            ForeignFinding f = about(ForeignFinding::Kind::Altered, block, t);
            f.row = r->label;
            f.fields = fields;
            f.detail = detail.join(QStringLiteral("; "));
            out << f;
        }
    }
    for (auto it = byIndex.cbegin(); it != byIndex.cend(); ++it) {
        if (node.contains(it.key()))
            continue;
        for (const ForeignRow* r : *it) {
            ForeignFinding f = about(ForeignFinding::Kind::Extra, block, *r);
            f.detail = QStringLiteral("the canonical block has no Transfer of the audited "
                                      "contracts at log index %1")
                           .arg(it.key());
            out << f;
        }
    }
    return out;
}

} // namespace forkscope::foreign
