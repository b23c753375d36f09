#include "ForeignRow.h"
#include "ForeignError.h"
#include "ForeignValue.h"

#include <QRegularExpression>

namespace forkscope::foreign {

namespace {
int find(const QStringList& names, const char* name)
{
    for (int i = 0; i < names.size(); ++i)
        if (names[i].compare(QLatin1String(name), Qt::CaseInsensitive) == 0)
            return i;
    return -1;
}
} // namespace

QString badCell(const QString& label, const QString& column, const ForeignCell& c,
                const QString& why)
{
    return QStringLiteral("row %1: column `%2` %3 %4").arg(label, column, shown(c), why);
}

ForeignColumns::ForeignColumns(const QStringList& names,
                               const std::optional<chain::Address>& onlyContract)
    : m_onlyContract(onlyContract), m_names(names)
{
    m_block = find(names, "block_number");
    m_logIndex = find(names, "log_index");
    m_txPosition = find(names, "tx_position");
    m_txHash = find(names, "tx_hash");
    m_contract = find(names, "contract");
    m_from = find(names, "from");
    m_to = find(names, "to");
    m_value = find(names, "value");
    m_blockHash = find(names, "block_hash");
    m_blockHashPrefix = find(names, "block_hash_prefix");
    m_id = find(names, "id");
    const QString yields = QStringLiteral(" (it yields: %1)").arg(names.join(QStringLiteral(", ")));
    const auto missing = [&](const QString& what) {
        return ForeignError(ForeignError::Kind::BadQuery,
                            QStringLiteral("the query yields no %1%2").arg(what, yields));
    };
    if (m_block < 0)
        throw missing(QStringLiteral("`block_number` column"));
    if (m_logIndex < 0 && (m_txHash < 0 || m_txPosition < 0))
        throw missing(QStringLiteral("`log_index` column (nor `tx_hash` and `tx_position`)"));
    if (m_contract < 0 && !m_onlyContract)
        throw missing(QStringLiteral("`contract` column (it may be left out when exactly one "
                                     "--contract is audited)"));
}

QStringList ForeignColumns::compared() const
{
    QStringList out;
    if (m_contract >= 0)
        out << QStringLiteral("contract");
    if (m_txHash >= 0)
        out << QStringLiteral("tx_hash");
    if (m_from >= 0)
        out << QStringLiteral("from");
    if (m_to >= 0)
        out << QStringLiteral("to");
    if (m_value >= 0)
        out << QStringLiteral("value");
    if (m_blockHash >= 0)
        out << QStringLiteral("block_hash");
    if (m_blockHashPrefix >= 0)
        out << QStringLiteral("block_hash_prefix");
    return out;
}

ForeignRow ForeignColumns::read(const ForeignCells& cells) const
{
    ForeignRow r;
    QString why;
    const auto fail = [&](int column) {
        return ForeignError(ForeignError::Kind::BadValue,
                            badCell(r.label, m_names.at(column), cells.at(column), why));
    };
    if (m_id >= 0)
        r.label = QStringLiteral("id %1").arg(shown(cells.at(m_id)));
    else
        r.label = QStringLiteral("with block_number %1").arg(shown(cells.at(m_block)));
    const auto block = blockNumberOf(cells.at(m_block), &why);
    if (!block)
        throw fail(m_block);
    r.block = *block;
    if (m_logIndex >= 0) {
        r.logIndex = blockNumberOf(cells.at(m_logIndex), &why);
        if (!r.logIndex)
            throw fail(m_logIndex);
        if (m_id < 0)
            r.label += QStringLiteral(", log_index %1").arg(*r.logIndex);
    }
    if (m_txHash >= 0) {
        r.txHash = hashOf(cells.at(m_txHash), &why);
        if (!r.txHash)
            throw fail(m_txHash);
    }
    if (!r.logIndex) {
        r.txPosition = blockNumberOf(cells.at(m_txPosition), &why);
        if (!r.txPosition)
            throw fail(m_txPosition);
        if (m_id < 0)
            r.label += QStringLiteral(", tx_hash %1, tx_position %2")
                           .arg(r.txHash->toHex())
                           .arg(*r.txPosition);
    }
    if (m_contract >= 0) {
        const auto c = addressOf(cells.at(m_contract), &why);
        if (!c)
            throw fail(m_contract);
        r.contract = *c;
    } else {
        r.contract = *m_onlyContract;
    }
    const auto address = [&](int column, std::optional<chain::Address>& out) {
        if (column < 0)
            return;
        out = addressOf(cells.at(column), &why);
        if (!out)
            throw fail(column);
    };
    address(m_from, r.from);
    address(m_to, r.to);
    if (m_value >= 0) {
        r.value = amountOf(cells.at(m_value), &why);
        if (!r.value)
            throw fail(m_value);
    }
    if (m_blockHash >= 0) {
        r.blockHash = hashOf(cells.at(m_blockHash), &why);
        if (!r.blockHash)
            throw fail(m_blockHash);
    }
    if (m_blockHashPrefix >= 0) {
        const ForeignCell& c = cells.at(m_blockHashPrefix);
        static const QRegularExpression hex(QStringLiteral("^(0x)?[0-9a-fA-F]{1,64}$"));
        const QString text = QString::fromUtf8(c.bytes).trimmed();
        if (c.type != ForeignCell::Type::Text || !hex.match(text).hasMatch()) {
            why = QStringLiteral("is not the first hex digits of a block hash");
            throw fail(m_blockHashPrefix);
        }
        r.blockHashPrefix =
            text.startsWith(QLatin1String("0x")) ? text.mid(2).toLower() : text.toLower();
    }
    return r;
}

} // namespace forkscope::foreign
