#include "EventDeclaration.h"
#include "chain/Keccak.h"

#include <QJsonObject>
#include <QRegularExpression>

namespace forkscope::abi {

AbiEvent parseEventDeclaration(const QString& text, const QString& where)
{
    const QString t = text.trimmed();
    static const QRegularExpression shape(
        QStringLiteral("^([A-Za-z_$][A-Za-z0-9_$]*)\\s*\\((.*)\\)$"),
        QRegularExpression::DotMatchesEverythingOption);
    const auto m = shape.match(t);
    if (!m.hasMatch())
        throw AbiError(
            QStringLiteral("%1: \"%2\" is not an event signature; expected "
                           "Name(type [indexed] [name], ...), e.g. \"PairCreated(address "
                           "indexed token0, address indexed token1, address pair, "
                           "uint256)\"")
                .arg(where, t));
    AbiEvent ev;
    ev.name = m.captured(1);
    const QString list = m.captured(2).trimmed();
    QStringList types;
    if (!list.isEmpty()) {
        const QStringList params = list.split(QLatin1Char(','));
        for (qsizetype i = 0; i < params.size(); ++i) {
            const QString at = QStringLiteral("%1: input %2 of %3").arg(where).arg(i).arg(ev.name);
            const QStringList words =
                params[i].simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
            if (words.isEmpty())
                throw AbiError(at + QStringLiteral(" is empty"));
            if (words[0].contains(QLatin1Char('(')) || words[0].startsWith(QLatin1String("tuple")))
                throw AbiError(at + QStringLiteral(" is a tuple; name an event with struct inputs "
                                                   "by its name in an --abi file instead"));
            qsizetype w = 1;
            const bool indexed = w < words.size() && words[w] == QLatin1String("indexed");
            if (indexed)
                ++w;
            QString name;
            if (w < words.size())
                name = words[w++];
            if (w < words.size())
                throw AbiError(at + QStringLiteral(": \"%1\" is not `type [indexed] [name]`")
                                        .arg(params[i].simplified()));
            static const QRegularExpression identifier(
                QStringLiteral("^[A-Za-z_$][A-Za-z0-9_$]*$"));
            if (!name.isEmpty() && !identifier.match(name).hasMatch())
                throw AbiError(at + QStringLiteral(": \"%1\" is not a name").arg(name));
            QJsonObject json{{QStringLiteral("type"), words[0]},
                             {QStringLiteral("name"), name},
                             {QStringLiteral("indexed"), indexed}};
            AbiParam p = AbiParam::fromJson(json, at);
            types << p.type.canonical();
            ev.inputs.append(p);
        }
    }
    int indexed = 0;
    for (const AbiParam& p : ev.inputs)
        indexed += p.indexed ? 1 : 0;
    if (indexed > 3)
        throw AbiError(QStringLiteral("%1: %2 has %3 indexed inputs; an event has at most 3")
                           .arg(where, ev.name)
                           .arg(indexed));
    ev.signature = ev.name + QLatin1Char('(') + types.join(QLatin1Char(',')) + QLatin1Char(')');
    ev.topic0 = chain::eventTopic(ev.signature);
    return ev;
}

} // namespace forkscope::abi
