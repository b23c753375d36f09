#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

namespace forkscope::engine {

// What the Contracts tab shows of the live environment, read in one snapshot of the store:
// every source it indexes (a plain contract, or a factory whose children it follows) with
// its checkpoint, and the factories' children with where they were created. A value: the
// window holds it and never asks the store itself.
struct SourceList
{
    enum class Kind { Contract, Factory };
    struct Source
    {
        Kind kind = Kind::Contract;
        QString address;  // 0x, lowercase
        QString event;    // a factory's creation event, as declared; empty for a contract
        QString childArg; // the event's argument holding the child's address
        QString sourceId; // the checkpoint row it is indexed under
        quint64 checkpoint = 0;
        quint64 startBlock = 0;
        qint64 children = 0; // a factory's children (all of them, not only those listed)
        // A contract added to the indexed environment, in its own backfill: `checkpoint` is
        // its own (none yet: `hasCheckpoint` false) and it joins the others when that reaches
        // `joinAt`, the environment's checkpoint.
        bool backfilling = false;
        bool hasCheckpoint = true;
        quint64 joinAt = 0;
    };
    struct Child
    {
        QString factory;
        QString child;
        quint64 block = 0;
        quint64 logIndex = 0;
        QString txHash;
    };
    // The most children one snapshot carries, the earliest created first: a factory with more
    // says so (Source::children counts them all).
    static constexpr int kMaxChildren = 20000;

    QString environmentId;
    QList<Source> sources;
    QList<Child> children;
    bool childrenTruncated = false;
    QString error; // the read failed: shown, sources empty
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::SourceList)
