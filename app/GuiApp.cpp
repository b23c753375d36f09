#include "GuiApp.h"
#include "CommandLine.h"
#include "MainWindow.h"
#include "UnixSignalWatcher.h"
#include "config/AppSettings.h"
#include "engine/EngineHost.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QStandardPaths>
#include <QTimer>
#include <QSettings>
#include <QUrl>
#include <cstdio>

#include "forkscope_version.h"

namespace forkscope::app {

int runGui(int& argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("forkscope"));
    QApplication::setOrganizationName(QStringLiteral("Forkscope"));
    QApplication::setApplicationVersion(QStringLiteral(FORKSCOPE_VERSION));

    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Forkscope desktop app."));
    p.addHelpOption();
    QCommandLineOption db(QStringLiteral("db"), QStringLiteral("SQLite database file."),
                          QStringLiteral("FILE"));
    QCommandLineOption rpc(QStringLiteral("rpc"),
                           QStringLiteral("JSON-RPC endpoint to watch instead of a managed anvil."),
                           QStringLiteral("URL"));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Save a PNG of the window after --screenshot-after-ms, then quit."),
                                  QStringLiteral("FILE"));
    QCommandLineOption screenshotAfter(QStringLiteral("screenshot-after-ms"),
                                       QStringLiteral("Delay before --screenshot (default 15000)."),
                                       QStringLiteral("MS"), QStringLiteral("15000"));
    p.addOption(db);
    p.addOption(rpc);
    p.addOption(screenshot);
    p.addOption(screenshotAfter);
    p.process(app);

    engine::EngineConfig config;
    config.dbPath = p.isSet(db)
                        ? p.value(db)
                        : QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                              .absoluteFilePath(QStringLiteral("forkscope.sqlite"));
    if (p.isSet(rpc)) {
        const QUrl url(p.value(rpc), QUrl::StrictMode);
        if (!url.isValid() || (url.scheme() != QLatin1String("http") &&
                               url.scheme() != QLatin1String("https"))) {
            printError(QStringLiteral("--rpc: \"%1\" is not an http(s) URL").arg(p.value(rpc)));
            return ExitUsage;
        }
        config.managedDevnet = false;
        config.rpcUrl = url;
    }

    // Saved settings (File > Settings) choose the node and contracts unless --rpc does.
    const auto fromSettings = [&config](const config::AppSettings& s) {
        engine::EngineConfig c = config;
        const QStringList endpoints = s.endpointList();
        c.managedDevnet = endpoints.isEmpty();
        c.rpcUrl = endpoints.isEmpty() ? QUrl() : QUrl(endpoints.first());
        for (const QString& e : endpoints)
            c.nodes.append(QUrl(e));
        c.contracts = s.contractList();
        c.readyRatio = s.readyRatio.toDouble() > 0 ? s.readyRatio.toDouble() : 0.8;
        return c;
    };
    if (!p.isSet(rpc)) {
        QSettings store;
        const config::AppSettings saved = config::AppSettings::load(store);
        if (!saved.endpointList().isEmpty())
            config = fromSettings(saved);
    }

    ui::MainWindow window;
    engine::EngineHost host;
    QObject::connect(&window, &ui::MainWindow::indexingPauseRequested, &host, &engine::EngineHost::setIndexingPaused);
    QObject::connect(&window, &ui::MainWindow::reorgDiffRequested, &host, &engine::EngineHost::requestReorgDiff);
    QObject::connect(&host, &engine::EngineHost::reorgDiffAvailable, &window, &ui::MainWindow::showReorgDiff);
    QObject::connect(&window, &ui::MainWindow::engineRestartRequested, &host, [&host, &config] { host.start(config); });
    QObject::connect(&window, &ui::MainWindow::engineStopRequested, &host, [&host] { host.shutdown(); });
    QObject::connect(&window, &ui::MainWindow::settingsChanged, &host,
                     [&host, &config, fromSettings](const config::AppSettings& s) {
                         config = fromSettings(s);
                         host.start(config);
                     });
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &window,
                     &ui::MainWindow::applyStatus);
    QObject::connect(&host, &engine::EngineHost::logMessage, &window, &ui::MainWindow::appendLog);
    // The event log is also mirrored on stderr, so headless runs and tests can follow it.
    QObject::connect(&host, &engine::EngineHost::logMessage, &app,
                     [](const QString& level, const QString& text) {
                         std::fprintf(stderr, "forkscope: [%s] %s\n", qPrintable(level),
                                      qPrintable(text));
                         std::fflush(stderr);
                     });
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested, &window,
                     &QWidget::close);
    window.show();
    host.start(config);
    if (p.isSet(screenshot)) {
        // For README and AppStream screenshots (packaging/screenshot.sh runs it under Xvfb).
        QTimer::singleShot(p.value(screenshotAfter).toInt(), &window, [&window, path = p.value(screenshot)] {
            if (!window.grab().save(path))
                printError(QStringLiteral("cannot write screenshot %1").arg(path));
            window.close();
        });
    }
    const int code = QApplication::exec();
    // Stop the workers (and the managed anvil) before the window goes away.
    host.shutdown();
    return code;
}

} // namespace forkscope::app
