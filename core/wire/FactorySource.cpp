#include "FactorySource.h"
#include "abi/EventDeclaration.h"
#include "chain/ChainParseError.h"

#include <QSet>

namespace forkscope::wire {

namespace {

QString inputList(const abi::AbiEvent& ev)
{
    QStringList names;
    for (int i = 0; i < ev.inputs.size(); ++i)
        names
            << (ev.inputs[i].name.isEmpty()
                    ? QStringLiteral("%1 (an unnamed %2)").arg(i).arg(ev.inputs[i].type.canonical())
                    : ev.inputs[i].name);
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

abi::AbiEvent eventOf(const QString& text, const abi::EventRegistry* abi)
{
    if (text.contains(QLatin1Char('('))) {
        try {
            return abi::parseEventDeclaration(text, QStringLiteral("--factory-event"));
        } catch (const abi::AbiError& e) {
            throw FactorySourceError(e.message());
        }
    }
    const QString name = text.trimmed();
    if (name.isEmpty())
        throw FactorySourceError(QStringLiteral("--factory-event is empty; give the event's "
                                                "signature, e.g. \"PairCreated(address indexed "
                                                "token0, address indexed token1, address pair, "
                                                "uint256)\""));
    if (!abi)
        throw FactorySourceError(
            QStringLiteral("--factory-event %1 is a name without a signature: give the full "
                           "signature, or an --abi file that declares the event")
                .arg(name));
    const QList<abi::AbiEvent> found = abi->findByName(name);
    if (found.size() != 1)
        throw FactorySourceError(
            found.isEmpty()
                ? QStringLiteral("--factory-event %1: the --abi file declares no event of that "
                                 "name")
                      .arg(name)
                : QStringLiteral("--factory-event %1: the --abi file declares %2 events of that "
                                 "name; give the full signature")
                      .arg(name)
                      .arg(found.size()));
    return found.first();
}

} // namespace

FactorySource FactorySource::resolve(const chain::Address& factory, const QString& event,
                                     const QString& childArg, const abi::EventRegistry* abi)
{
    FactorySource s;
    s.m_factory = factory;
    s.m_event = eventOf(event, abi);
    const QString arg = childArg.trimmed();
    bool numeric = false;
    const int index = arg.toInt(&numeric);
    for (int i = 0; i < s.m_event.inputs.size(); ++i)
        if (s.m_event.inputs[i].name == arg || (numeric && i == index))
            s.m_input = i;
    if (s.m_input < 0)
        throw FactorySourceError(
            QStringLiteral("--child-arg %1: %2 has no argument of that name (its arguments: %3)")
                .arg(arg.isEmpty() ? QStringLiteral("\"\"") : arg, s.m_event.declaration(),
                     inputList(s.m_event)));
    const abi::AbiParam& p = s.m_event.inputs[s.m_input];
    if (p.type.kind != abi::AbiType::Kind::Address)
        throw FactorySourceError(QStringLiteral("--child-arg %1: that argument of %2 is a %3, "
                                                "not an address")
                                     .arg(arg, s.m_event.declaration(), p.type.canonical()));
    int topic = 1;
    qsizetype word = 0;
    for (int i = 0; i < s.m_event.inputs.size(); ++i) {
        const abi::AbiParam& in = s.m_event.inputs[i];
        if (i == s.m_input) {
            if (in.indexed)
                s.m_topic = topic;
            else
                s.m_word = word;
        }
        if (in.indexed)
            ++topic;
        else
            word += qsizetype(in.type.isDynamic() ? 1 : in.type.headWords());
    }
    s.m_topics = topic;
    return s;
}

QString FactorySource::childArg() const
{
    return m_event.inputs[m_input].name.isEmpty() ? QString::number(m_input)
                                                  : m_event.inputs[m_input].name;
}

QString FactorySource::ruleText() const
{
    QString declaration = m_event.declaration();
    declaration.replace(QStringLiteral(", "), QStringLiteral(","));
    declaration.replace(QLatin1Char(' '), QLatin1Char('+'));
    return QStringLiteral("factory:%1:%2:%3").arg(m_factory.toHex(), declaration, childArg());
}

QStringList FactorySource::arguments() const
{
    return {QStringLiteral("--factory"),       m_factory.toHex(),
            QStringLiteral("--factory-event"), m_event.declaration(),
            QStringLiteral("--child-arg"),     childArg()};
}

std::optional<FactorySource> FactorySource::fromRuleText(const QString& token)
{
    if (!token.startsWith(QLatin1String("factory:")))
        return std::nullopt;
    const QStringList parts = token.split(QLatin1Char(':'));
    if (parts.size() != 4)
        throw FactorySourceError(
            QStringLiteral("factory rule \"%1\" is not factory:<address>:<event>:<argument>")
                .arg(chain::shownText(token)));
    QString declaration = parts[2];
    declaration.replace(QLatin1Char(','), QStringLiteral(", "));
    declaration.replace(QLatin1Char('+'), QLatin1Char(' '));
    try {
        return resolve(chain::Address::fromHex(parts[1], QStringLiteral("factory rule")),
                       declaration, parts[3], nullptr);
    } catch (const chain::ChainParseError& e) {
        throw FactorySourceError(e.message());
    }
}

std::optional<ChildCreation> FactorySource::creationOf(const chain::LogEntry& log) const
{
    if (log.address != m_factory || log.topics.size() != m_topics ||
        log.topics.front() != m_event.topic0)
        return std::nullopt;
    QByteArray word;
    if (m_topic > 0) {
        word = log.topics[m_topic].toByteArray();
    } else {
        if (log.data.size() < (m_word + 1) * 32)
            return std::nullopt;
        word = log.data.mid(m_word * 32, 32);
    }
    // An address is a word whose first 12 bytes are zero; anything else is no child.
    if (word.left(12) != QByteArray(12, '\0'))
        return std::nullopt;
    ChildCreation c;
    c.factory = m_factory;
    c.child = chain::Address::fromBytes(word.mid(12), QStringLiteral("child"));
    c.blockNumber = log.blockNumber;
    c.logIndex = log.logIndex;
    c.blockHash = log.blockHash;
    c.txHash = log.transactionHash;
    return c;
}

QList<chain::Address> factoryAddresses(const QList<FactorySource>& sources)
{
    QList<chain::Address> out;
    for (const FactorySource& s : sources)
        if (!out.contains(s.factory()))
            out.append(s.factory());
    return out;
}

QList<ChildCreation> creationsIn(const QList<chain::LogEntry>& logs,
                                 const QList<FactorySource>& sources)
{
    QList<ChildCreation> out;
    QSet<chain::Address> seen;
    for (const chain::LogEntry& log : logs)
        for (const FactorySource& s : sources)
            if (const auto c = s.creationOf(log); c && !seen.contains(c->child)) {
                seen.insert(c->child);
                out.append(*c);
            }
    return out;
}

} // namespace forkscope::wire
