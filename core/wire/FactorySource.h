#pragma once

#include "abi/EventRegistry.h"
#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <stdexcept>

namespace forkscope::wire {

// A child contract as its factory's creation event announced it: where that event is on the
// chain is where the child's history starts (its constructor's logs, earlier in the same
// block, included).
struct ChildCreation
{
    chain::Address factory;
    chain::Address child;
    std::uint64_t blockNumber = 0;
    std::uint64_t logIndex = 0;
    chain::Hash32 blockHash;
    chain::Hash32 txHash;
};

// What a factory source is refused for: one line naming the flag and what was wrong.
class FactorySourceError : public std::runtime_error
{
public:
    explicit FactorySourceError(const QString& message) : std::runtime_error(message.toStdString())
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
};

// A factory a source follows: its address, the event it emits for each contract it
// creates, and which argument of that event holds the new contract's address. Every child
// is indexed like a contract of the source from the block of its creation event (as
// Ponder's factory(), graph-node's templates and Envio's contractRegister do).
class FactorySource
{
public:
    // From what a user names (--factory, --factory-event, --child-arg): the event is a full
    // signature, "PairCreated(address indexed token0, address indexed token1, address pair,
    // uint256)", or an event's name in `abi`; the argument is a name, or an input's index
    // for an unnamed one. Throws FactorySourceError: a bad signature, an unknown name, an
    // argument that is no address.
    static FactorySource resolve(const chain::Address& factory, const QString& event,
                                 const QString& childArg, const abi::EventRegistry* abi);
    // From ruleText(); nullopt when `token` is not a factory's rule (a plain address).
    // Throws FactorySourceError when it is one but does not read.
    static std::optional<FactorySource> fromRuleText(const QString& token);

    // The one word the checkpoint's contract set records for it, so that a run with another
    // factory or event is refused like one with other contracts and `verify` knows the rule:
    // factory:<address>:<declaration, spaces as '+'>:<argument>.
    QString ruleText() const;
    // The index flags that name it again (`forkscope index ... --factory ...`).
    QStringList arguments() const;

    const chain::Address& factory() const { return m_factory; }
    const abi::AbiEvent& event() const { return m_event; }
    const chain::Hash32& topic0() const { return m_event.topic0; }
    QString childArg() const;

    // The child that `log` announces, or nullopt when it is not this factory's creation event
    // (another event, other topics, or a word that is not an address).
    std::optional<ChildCreation> creationOf(const chain::LogEntry& log) const;

    friend bool operator==(const FactorySource& a, const FactorySource& b)
    {
        return a.ruleText() == b.ruleText();
    }

private:
    chain::Address m_factory;
    abi::AbiEvent m_event;
    int m_input = -1;     // the child's input
    int m_topic = -1;     // its topic, when indexed (1..3)
    qsizetype m_word = 0; // else its head word in the data
    int m_topics = 1;     // topics a creation log has
};

// The addresses of `sources`' factories.
QList<chain::Address> factoryAddresses(const QList<FactorySource>& sources);
// The creations among `logs` (sorted as they are), each child once: a child announced again
// later keeps its first creation.
QList<ChildCreation> creationsIn(const QList<chain::LogEntry>& logs,
                                 const QList<FactorySource>& sources);

} // namespace forkscope::wire
