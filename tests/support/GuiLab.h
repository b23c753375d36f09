#pragma once
// Shared by the GUI lab suites: a main window attached to an engine on a managed anvil,
// and helpers to answer dialogs and to let the chain settle.
#include "EnvironmentDump.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "store/Database.h"

#include <QAction>
#include <QApplication>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <functional>

namespace forkscope::test {

// Answers the next modal dialog the way a user would: `fill` sets its fields, then OK.
template <typename Dialog, typename Fill> inline void answerNextDialog(Fill fill)
{
    QTimer::singleShot(0, [fill] {
        QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
        auto* d = qobject_cast<Dialog*>(QApplication::activeModalWidget());
        QVERIFY2(d, "the expected dialog did not open");
        fill(d);
        d->accept();
    });
}

// The window's action with this text (menus and toolbars alike), or nullptr.
inline QAction* actionNamed(QWidget& window, const QString& text)
{
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == text)
            return a;
    return nullptr;
}

struct Lab
{
    QTemporaryDir dir;
    engine::EngineHost host; // before the window, which connects itself to it
    ui::MainWindow w{&host};
    QSignalSpy statuses{&host, &engine::EngineHost::statusAvailable};
    QSignalSpy logs{&host, &engine::EngineHost::logMessage};
    ~Lab()
    {
        if (QTest::currentTestFailed())
            for (const auto& l : logs)
                qInfo("engine log: [%s] %s", qPrintable(l.at(0).toString()),
                      qPrintable(l.at(1).toString()));
    }
    engine::EngineStatus last() const
    {
        return statuses.last().at(0).value<engine::EngineStatus>();
    }
    bool logged(const QString& text) const
    {
        for (const auto& l : logs)
            if (l.at(1).toString().contains(text))
                return true;
        return false;
    }
    QString dbPath() const { return dir.filePath("lab.sqlite"); }
    // `adjust` changes the lab's configuration before the engine starts.
    void start(int labNodes = 0, const std::function<void(engine::EngineConfig&)>& adjust = {})
    {
        engine::EngineConfig config;
        config.dbPath = dbPath();
        config.demoTraffic = false; // the test decides when blocks come
        config.labNodes = labNodes;
        if (adjust)
            adjust(config);
        w.show();
        host.start(config);
    }
};
inline void settle(Lab& lab, int minHead)
{
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().headBlock.value_or(0) >= quint64(minHead), 30000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().demoTraffic, 10000);
    QTest::qWait(1200); // the last demo tick may still be mining
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint && lab.last().checkpoint == lab.last().headBlock,
                             30000);
}

} // namespace forkscope::test
