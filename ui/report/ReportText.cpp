#include "ReportText.h"
#include "ShortHex.h"

#include <QLocale>

namespace forkscope::ui::reporttext {

QString amount(const QString& raw, const QString& contract, const report::CheckpointReport& r)
{
    if (raw.isEmpty())
        return QStringLiteral("–");
    const auto it = r.tokens.constFind(contract.toLower());
    if (it != r.tokens.cend())
        return chain::formatTokenAmount(raw, *it);
    return raw + QStringLiteral(" base units");
}

QString kindName(const QString& kind)
{
    if (kind == QLatin1String("transfer_removed"))
        return QStringLiteral("transfer removed");
    if (kind == QLatin1String("balance_changed"))
        return QStringLiteral("balance changed");
    if (kind == QLatin1String("outbox_dropped"))
        return QStringLiteral("outbox row dropped");
    if (kind == QLatin1String("outbox_delivered_reorged"))
        return QStringLiteral("delivered outbox row retracted");
    if (kind == QLatin1String("outbox_unconfirmed_retracted"))
        return QStringLiteral("outbox row sent without an answer, retracted");
    return kind;
}

QString count(qint64 n, const QString& singular, const QString& plural)
{
    return QStringLiteral("%1 %2").arg(number(n), n == 1 ? singular : plural);
}

QString number(qint64 n)
{
    return QLocale(QLocale::English).toString(n);
}

QString undone(const report::ReorgEntry& e)
{
    QStringList parts;
    const auto add = [&](const char* kind, const QString& one, const QString& many) {
        const qint64 n = e.diffCounts.value(QString::fromLatin1(kind));
        if (n > 0)
            parts << count(n, one, many);
    };
    add("transfer_removed", QStringLiteral("transfer removed"),
        QStringLiteral("transfers removed"));
    add("balance_changed", QStringLiteral("balance changed"), QStringLiteral("balances changed"));
    add("outbox_dropped", QStringLiteral("outbox row dropped"),
        QStringLiteral("outbox rows dropped"));
    add("outbox_delivered_reorged", QStringLiteral("delivered outbox row retracted"),
        QStringLiteral("delivered outbox rows retracted"));
    add("outbox_unconfirmed_retracted",
        QStringLiteral("outbox row sent without an answer retracted"),
        QStringLiteral("outbox rows sent without an answer retracted"));
    return parts.isEmpty() ? QStringLiteral("nothing of ours was in the replaced blocks")
                           : parts.join(QStringLiteral(", "));
}

QString itemDetail(const report::ReorgDiffItem& d, const report::CheckpointReport& r)
{
    if (d.kind == QLatin1String("transfer_removed")) {
        QString s =
            QStringLiteral("%1 → %2: %3")
                .arg(shortHex(d.fromAddr), shortHex(d.toAddr), amount(d.value, d.contract, r));
        if (!d.txHash.isEmpty())
            s += QStringLiteral(" (tx %1)").arg(shortHex(d.txHash));
        return s;
    }
    if (d.kind == QLatin1String("balance_changed"))
        return QStringLiteral("%1: %2 → %3")
            .arg(shortHex(d.holder), amount(d.beforeValue, d.contract, r),
                 amount(d.afterValue, d.contract, r));
    return d.eventKey.isEmpty() ? QStringLiteral("–") : d.eventKey;
}

} // namespace forkscope::ui::reporttext
