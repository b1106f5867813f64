#!/bin/sh
# The load lab's guest side (busybox sh), one job per boot: for each row of /lab/load/rows
# ("AP SEC": AP hostapd|wsec, SEC psk|sae), on fresh mac80211_hwsim radios:
#   phy0/wlan0  the access point (hostapd, or wsec ap on radio:wlan0), 10.9.0.1/16
#   phy1/wlan1  wsec load: N emulated stations on one active monitor (station 0's
#               address), plus N-1 more active monitor interfaces on phy1 that only carry
#               the other stations' addresses, so that mac80211_hwsim acknowledges frames
#               to them (it acks a frame whose A1 is the address of an active interface
#               of a radio on the channel) as it would an associated card's.
# With MEDIUM=hwsim (load.env) there are no address interfaces: wsec load registers as the
# medium of the hwsim radios (HWSIM_CMD_REGISTER, the wmediumd interface, medium
# hwsim:0), delivers its stations' frames to radio 0 and acknowledges the AP's frames to
# them itself; wlan1 is left down.
# Settings come from /lab/load/load.env (N, CONCURRENCY, FRAMES); each row's report goes
# to /lab/out/load-AP-SEC.json, its logs beside it.
export PATH=/lab/bin:/usr/sbin:/usr/bin:/sbin:/bin
L=/lab/load
O=/lab/out
. "$L/load.env"
log() { echo "lab-load: $(cut -d' ' -f1 /proc/uptime) $*"; }
modprobe tun
for m in ccm gcm cmac ctr ghash-generic libarc4 michael_mic; do modprobe "$m" 2>/dev/null; done
# One neighbour entry per station on the AP's host (the kernel's ARP reply needs one):
# the default gc_thresh3 of 1024 is less than 2,007.
echo 4096 >/proc/sys/net/ipv4/neigh/default/gc_thresh1
echo 8192 >/proc/sys/net/ipv4/neigh/default/gc_thresh2
echo 16384 >/proc/sys/net/ipv4/neigh/default/gc_thresh3
hostapd -v 2>&1 | head -1 >"$O/versions.txt"
uname -r >>"$O/versions.txt"
grep -m1 'model name' /proc/cpuinfo >>"$O/versions.txt"

fresh_radios() {
    killall -q hostapd wsec 2>/dev/null
    sleep 0.5
    rmmod mac80211_hwsim 2>/dev/null
    modprobe mac80211_hwsim radios=2 || return 1
    [ "${MEDIUM:-monitors}" = hwsim ] && return 0
    phy=$(cat /sys/class/net/wlan1/phy80211/name)
    i=1
    while [ $i -lt "$N" ]; do
        iw phy "$phy" interface add "ld$i" type monitor flags active || return 1
        ip link set "ld$i" address "$(printf '02:4c:44:00:%02x:%02x' $((i >> 8)) $((i & 255)))" || return 1
        ip link set "ld$i" up || return 1
        i=$((i + 1))
    done
}

RADIOS=
while read -r AP SEC; do
    [ -n "$AP" ] || continue
    R=$AP-$SEC
    log "row $R: $N stations, $CONCURRENCY joining at once"
    t0=$(cut -d' ' -f1 /proc/uptime)
    # The radios (and the N-1 address interfaces) once per boot: under TCG each interface
    # takes about 0.2 s to make. Each AP restores its radio when it stops.
    if [ -z "$RADIOS" ]; then
        fresh_radios || { log "row $R: no radios"; echo '{"error": "no radios"}' >"$O/load-$R.json"; continue; }
        RADIOS=1
        log "row $R: radios up (from $t0)"
    fi
    case $AP in
    hostapd)
        hostapd $HOSTAPD_DEBUG -t "$L/hostapd-$SEC.conf" >"$O/ap-$R.log" 2>&1 &
        AP_PID=$!
        for i in $(seq 1 100); do grep -q 'AP-ENABLED' "$O/ap-$R.log" && break; sleep 0.1; done
        ip addr add 10.9.0.1/16 dev wlan0
        ;;
    wsec)
        wsec ap -c "$L/wsec-$SEC.conf" >"$O/ap-$R.log" 2>&1 &
        AP_PID=$!
        for i in $(seq 1 100); do ip link show wap0 >/dev/null 2>&1 && break; sleep 0.1; done
        ip addr add 10.9.0.1/16 dev wap0
        ip link set wap0 up
        ;;
    esac
    sleep 1
    if [ "${MEDIUM:-monitors}" = hwsim ]; then LM=hwsim:0; else LM=radio:wlan1; fi
    wsec load -c "$L/sta-$SEC.conf" --medium "$LM" --stations "$N" --concurrency "$CONCURRENCY" --frames "$FRAMES" \
        --join-timeout "$JOIN_TIMEOUT" --retry-ms "${RETRY_MS:-200}" --fill-timeout "$FILL_TIMEOUT" --ap-pid "$AP_PID" --json --progress \
        >"$O/load-$R.json" 2>"$O/load-$R.log"
    log "row $R: wsec load exit $?: $(cat "$O/load-$R.json")"
    kill "$AP_PID"
    wait "$AP_PID" 2>/dev/null
done <"$L/rows"
