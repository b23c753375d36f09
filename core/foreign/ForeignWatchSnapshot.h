#pragma once

#include "ForeignFinding.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <array>
#include <optional>

namespace forkscope::foreign {

// One check of a watched foreign indexer, as the window draws it: a value, made on the
// engine's thread and never changed after. A check that could not run says why in `problem`
// and carries no heights: the window shows the gap, never the last clean state.
struct ForeignWatchSnapshot
{
    enum class State {
        Starting,          // no check has run yet
        Waiting,           // the check ran: the query yields no row yet
        Watching,          // the check ran: heights and findings are this check's
        TargetUnreachable, // the file or the database cannot be opened or read
        QueryFailed,       // the query does not run, lacks a column, or a value does not parse
        NodeUnreachable,   // the lab's node did not answer
        NodeUntrusted,     // the node's answers contradict its own headers
        Refused,           // the watch was not started (problem says why)
        Stopped,           // the watch was stopped
    };
    // The current findings kept with their text (newest blocks first); every one is counted.
    static constexpr qsizetype kFindingsShown = 500;

    quint64 id = 0;
    State state = State::Starting;
    QString problem; // one line while a check could not run, or why the watch ended
    QString target;  // the file, or the URL without its password
    QString node;
    QStringList contracts;
    std::uint64_t confirmations = 0;
    QDateTime at;            // when this check ended
    QDateTime lastCheckRan;  // the last check that ran (invalid: none yet)
    qint64 checks = 0;       // checks so far
    qint64 failedChecks = 0; // of those, checks that could not run

    std::optional<std::uint64_t> foreignHead; // the table's highest block_number
    std::optional<std::uint64_t> labHead;     // the node's head
    // The blocks the findings cover: from the table's lowest block up to the newest block
    // both settled (the head minus the confirmations) and in the table.
    std::optional<std::uint64_t> auditedFrom;
    std::optional<std::uint64_t> auditedTo;

    std::array<qint64, ForeignFinding::kKinds> counts{};
    QList<ForeignFinding> findings;

    bool checkRan() const { return state == State::Waiting || state == State::Watching; }
    // What ended the watch or refused it: no further snapshot comes.
    bool final() const { return state == State::Stopped || state == State::Refused; }
    // The lab's head minus the table's highest block (0 when the table is ahead).
    std::optional<std::uint64_t> lag() const
    {
        if (!foreignHead || !labHead)
            return std::nullopt;
        return *labHead > *foreignHead ? *labHead - *foreignHead : 0;
    }
    qint64 findingCount() const
    {
        qint64 n = 0;
        for (qint64 c : counts)
            n += c;
        return n;
    }
};

// "watching", "target unreachable", ... as the panel and the log name a state.
QString watchStateName(ForeignWatchSnapshot::State state);

} // namespace forkscope::foreign

Q_DECLARE_METATYPE(forkscope::foreign::ForeignWatchSnapshot)
