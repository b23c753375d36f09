#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

namespace forkscope::engine {

// A source a user names in the app's "Add contract..." or "Add factory..." dialog: a plain
// contract, or a factory with its creation event (the full signature as Solidity declares
// it) and the argument that holds each child's address. A value, checked by check() before
// anything is asked of the node or written.
struct SourceSpec
{
    enum class Kind { Contract, Factory };
    Kind kind = Kind::Contract;
    QString address;
    QString event;
    QString childArg;

    // What can be checked without the node, in one line naming the field, or empty when it
    // holds: the address is 20 bytes of 0x hex; a factory's event parses as an event
    // declaration, and its child argument names (or, from 0, numbers) an address parameter.
    QString check() const;
    // The address in lowercase 0x form (check() must hold).
    QString normalizedAddress() const;
    // The flags that name this source to `forkscope index` (check() must hold): --contract,
    // or --factory, --factory-event and --child-arg.
    QStringList indexArguments() const;
};

// The node's answer to "is there code at this address?" (eth_getCode at the latest block),
// checked before it is used: a reply that is not 0x hex data is an error, not "no code".
struct CodeCheck
{
    enum class Verdict { HasCode, NoCode, Failed };
    quint64 ticket = 0; // as requestCodeCheck returned it
    QString address;
    Verdict verdict = Verdict::Failed;
    qint64 codeBytes = 0;
    QString error; // Failed: why (no node yet, no answer, a malformed reply)
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::CodeCheck)
