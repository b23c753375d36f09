// The Contracts tab's "Add factory..." on a running lab: the dialog checks the factory, the
// engine backfills it with the children it made before, next to the head, while it makes
// more; it is listed as backfilling, then as a factory of the environment, and the file holds
// every child's logs from its creation block, counted against the node child by child.
#include "BottomDrawer.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "contracts/AddSourceDialog.h"
#include "contracts/ContractsView.h"
#include "contracts/SourceTableModel.h"
#include "engine/EngineHost.h"
#include "lab/DemoFactory.h"
#include "lab/DemoToken.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/Database.h"

#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSqlQuery>
#include <QtTest>

using namespace forkscope;
using test::Lab;

class TestAddFactoryApp : public QObject
{
    Q_OBJECT
private slots:
    void addFactoryJoinsTheRunningLab();
};

void TestAddFactoryApp::addFactoryJoinsTheRunningLab()
{
    Lab lab;
    lab.start(1, [](engine::EngineConfig& c) { c.indexer.batchSize = 2; });
    QTRY_VERIFY_WITH_TIMEOUT(!lab.statuses.isEmpty() && lab.last().checkpoint > 0 &&
                                 lab.last().checkpoint == lab.last().headBlock,
                             60000);
    rpc::JsonRpcClient node{QUrl(lab.last().endpoint)};
    rpc::EthClient eth(node);
    lab::DemoFactory factory = lab::DemoFactory::deploy(node, lab::DemoToken::defaultSender(node));
    QList<chain::Address> children;
    for (int i = 0; i < 3; ++i) // made before it is added: only its backfill finds them
        children << factory.createChild(quint64(1000 + i));
    // As tst_lab's add-contract test waits: the chain holds still, so the lab has caught up
    // once its checkpoint is this block (the engine's head need not equal it at that look).
    const quint64 tip = eth.blockNumber();
    QTRY_VERIFY2_WITH_TIMEOUT(lab.last().checkpoint.value_or(0) >= tip,
                              qPrintable(QStringLiteral("node at %1, engine checkpoint %2, head %3")
                                             .arg(tip)
                                             .arg(lab.last().checkpoint.value_or(0))
                                             .arg(lab.last().headBlock.value_or(0))),
                              90000);
    const QString address = factory.address().toHex();

    lab.w.drawer()->showPage(lab.w.drawer()->indexOfPage(lab.w.contractsView()));
    lab.w.contractsView()->addFactoryButton()->click();
    QPointer<ui::AddSourceDialog> dialog; // it deletes itself once accepted
    QTRY_VERIFY((dialog = lab.w.findChild<ui::AddSourceDialog*>()) && dialog->isVisible());
    dialog->addressEdit()->setText(address);
    dialog->eventEdit()->setText(lab::DemoFactory::creationEvent());
    dialog->childArgEdit()->setText(QStringLiteral("pair"));
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog || !dialog->isVisible(), 15000); // code found: accepted
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("add factory " + address), 15000);
    QVERIFY(!lab.logged("add factory " + address + ": nothing"));
    for (int i = 0; i < 2; ++i) // the head moves with children meanwhile
        children << factory.createChild(quint64(2000 + i));

    // Listed as a factory of the environment once it joined, with every child.
    ui::SourceTableModel* sources = lab.w.contractsView()->sources();
    const auto rowOf = [&] {
        for (int r = 0; r < sources->rowCount(); ++r)
            if (sources->text(r, ui::SourceTableModel::Address) == address)
                return r;
        return -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(rowOf() >= 0 && sources->text(rowOf(), ui::SourceTableModel::Kind) ==
                                                 QStringLiteral("factory"),
                             90000);
    children << factory.createChild(3000); // found by the head, now that it joined
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint == lab.last().headBlock &&
                                 lab.last().headBlock == eth.blockNumber(),
                             90000);
    QTRY_VERIFY_WITH_TIMEOUT(sources->text(rowOf(), ui::SourceTableModel::Children) ==
                                 QString::number(children.size()),
                             30000);
    const QString env = lab.last().environmentId;
    const quint64 cp = *lab.last().checkpoint;
    // The node's logs of each child (the node goes with the engine).
    QHash<chain::Address, QList<chain::LogEntry>> nodeLogs;
    for (const chain::Address& child : children)
        nodeLogs.insert(child, eth.getLogs(rpc::LogFilter::range(0, cp, {child})));
    lab.host.shutdown();

    auto db = store::Database::open(lab.dbPath());
    for (const chain::Address& child : children) {
        const QList<chain::LogEntry>& logs = nodeLogs[child];
        QVERIFY(!logs.isEmpty()); // its constructor's mint, at least
        QSqlQuery q = db->run("SELECT count(*), min(block_number) FROM logs WHERE environment_id "
                              "= ? AND address = ?",
                              {env, child.toHex()});
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toLongLong(), qint64(logs.size()));
        QCOMPARE(q.value(1).toULongLong(), logs.first().blockNumber);
        QSqlQuery c = db->run("SELECT block_number FROM factory_children WHERE environment_id = ? "
                              "AND child = ? AND factory = ?",
                              {env, child.toHex(), address});
        QVERIFY2(c.next(), qPrintable(child.toHex()));
        QCOMPARE(c.value(0).toULongLong(), logs.first().blockNumber);
    }
}

QTEST_MAIN(TestAddFactoryApp)
#include "tst_addfactoryapp.moc"
