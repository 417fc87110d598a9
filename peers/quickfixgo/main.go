// storewriter: writes a QuickFIX/Go file store through QuickFIX/Go's own store API
// (store/file), for the store-import test (crates/peregrine-cli/tests/store_import.rs):
// session FIX.4.4 SENDER->TARGET in DIR, COUNT NewOrderSingles stored under 1..COUNT
// (built by QuickFIX/Go's Message), the next sender number COUNT+1, the next target
// number TARGET.
//
//	storewriter DIR SENDER TARGET COUNT NEXT_TARGET
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/quickfixgo/quickfix/config"
	"github.com/quickfixgo/quickfix/store/file"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "storewriter:", err)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: storewriter DIR SENDER TARGET COUNT NEXT_TARGET")
		os.Exit(2)
	}
	dir, sender, target := os.Args[1], os.Args[2], os.Args[3]
	count, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail(err)
	}
	nextTarget, err := strconv.Atoi(os.Args[5])
	if err != nil {
		fail(err)
	}
	settings := quickfix.NewSettings()
	s := quickfix.NewSessionSettings()
	s.Set(config.BeginString, "FIX.4.4")
	s.Set(config.SenderCompID, sender)
	s.Set(config.TargetCompID, target)
	s.Set(config.FileStorePath, dir)
	id, err := settings.AddSession(s)
	if err != nil {
		fail(err)
	}
	store, err := file.NewStoreFactory(settings).Create(id)
	if err != nil {
		fail(err)
	}
	defer store.Close()
	for n := 1; n <= count; n++ {
		m := quickfix.NewMessage()
		m.Header.SetString(8, "FIX.4.4")
		m.Header.SetString(35, "D")
		m.Header.SetString(49, sender)
		m.Header.SetString(56, target)
		m.Header.SetInt(34, n)
		m.Header.SetString(52, time.Now().UTC().Format("20060102-15:04:05.000"))
		m.Body.SetString(11, "G"+strconv.Itoa(n))
		m.Body.SetString(55, "PGRN")
		m.Body.SetString(54, "1")
		m.Body.SetString(38, "1")
		m.Body.SetString(40, "1")
		m.Body.SetString(60, time.Now().UTC().Format("20060102-15:04:05.000"))
		if err := store.SaveMessageAndIncrNextSenderMsgSeqNum(n, m.Bytes()); err != nil {
			fail(err)
		}
	}
	if err := store.SetNextTargetMsgSeqNum(nextTarget); err != nil {
		fail(err)
	}
	fmt.Printf("stored %d, next sender %d, next target %d, created %s\n", count,
		store.NextSenderMsgSeqNum(), store.NextTargetMsgSeqNum(),
		store.CreationTime().Format(time.RFC3339Nano))
}
