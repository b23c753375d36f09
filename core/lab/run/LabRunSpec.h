#pragma once

#include "LabScenario.h"

#include <QMetaType>
#include <QString>

namespace forkscope::lab {

// What a lab run is asked to do (`forkscope lab run`'s flags, or the app's Run lab scenario
// dialog), checked: LabRunInput turns what a user typed into one.
struct LabRunSpec
{
    QString indexerCommand;
    LabScenario scenario = LabScenario::ReorgStorm;
    quint32 seed = 1;
    QString query;    // one row per Transfer, as `forkscope audit --query` takes it
    QString database; // a postgresql:// URL or SQLite file; empty: a throwaway cluster
    quint64 confirmations = 0;
    int catchUpTimeoutMs = 120000;
    bool receipts = false; // audit with the receipts-root proof
};

} // namespace forkscope::lab

Q_DECLARE_METATYPE(forkscope::lab::LabRunSpec)
