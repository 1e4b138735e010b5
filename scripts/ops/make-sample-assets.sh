#!/usr/bin/env bash
# Makes the stand-in training video, its Spanish captions, its chapters and its poster (media/).
# Run by hand (not at install): bash scripts/ops/make-sample-assets.sh [output-dir]
# Needs ffmpeg with libx264, aac and drawtext (Debian: apt-get install ffmpeg fonts-dejavu-core),
# and the project's node_modules (npm ci) for the chapters track.
# The company's own files replace these through VIDEO_FILE, CAPTIONS_FILE, CHAPTERS_FILE and
# POSTER_FILE.
set -euo pipefail

cd "$(dirname "$0")/../.."
OUT_DIR=${1:-media}
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
FONT_BOLD=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
W=640
H=360
FPS=25
TITLE_S=8
SCENE_S=13

command -v ffmpeg >/dev/null || { echo "ffmpeg not found (apt-get install ffmpeg)" >&2; exit 1; }
for f in "$FONT" "$FONT_BOLD"; do
  [ -f "$f" ] || { echo "font $f not found (apt-get install fonts-dejavu-core)" >&2; exit 1; }
done

mkdir -p "$OUT_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Text goes through files: drawtext's inline escaping of ":" and "—" is fragile.
printf '%s' 'Muestra — Capacitación:' >"$tmp/title1.txt"
printf '%s' 'manejo de silo bolsa (edición 2023)' >"$tmp/title2.txt"
printf '%s' 'Video de demostración: reemplácelo por el de la empresa.' >"$tmp/title3.txt"

# name | gradient colour 1 | gradient colour 2 | tone (Hz)
scenes=(
  "1. Elección y preparación del terreno|0x33691e|0xc5e1a5|220"
  "2. Embolsado: máquina y bolsa|0x8d6e63|0xffe082|262"
  "3. Llenado y estiba del grano|0xf9a825|0x6d4c41|294"
  "4. Cierre de la bolsa y rotulado|0x1565c0|0xb3e5fc|330"
  "5. Monitoreo, calado y extracción|0x4e342e|0xa5d6a7|392"
)

text() { # file size y colour → a drawtext filter centred horizontally
  echo "drawtext=fontfile=$4:textfile=$1:fontsize=$2:fontcolor=white:x=(w-text_w)/2:y=$3:shadowcolor=black@0.6:shadowx=2:shadowy=2"
}

echo "Title card…"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "gradients=s=${W}x${H}:r=$FPS:d=$TITLE_S:c0=0x1b5e20:c1=0x33691e:speed=0.01" \
  -f lavfi -i "anullsrc=r=48000:cl=mono" \
  -filter_complex "[0:v]drawbox=x=0:y=ih*0.62:w=iw:h=ih*0.38:color=0xd4b483@0.85:t=fill,\
$(text "$tmp/title1.txt" 32 'h*0.22' "$FONT_BOLD"),\
$(text "$tmp/title2.txt" 28 'h*0.36' "$FONT_BOLD"),\
$(text "$tmp/title3.txt" 17 'h*0.76' "$FONT"),fade=t=in:d=0.5,fade=t=out:st=$((TITLE_S - 1)):d=1[v]" \
  -map "[v]" -map 1:a -t "$TITLE_S" -c:v libx264 -crf 12 -preset veryfast -c:a pcm_s16le \
  "$tmp/seg0.mkv"

i=1
for scene in "${scenes[@]}"; do
  IFS='|' read -r name c0 c1 tone <<<"$scene"
  echo "Scene $i: $name"
  printf '%s' "$name" >"$tmp/scene$i.txt"
  # The clock shows the time in the whole video (pts offset), so a seek lands visibly.
  printf '%%{pts:gmtime:%d:%%M\\:%%S}' "$((TITLE_S + (i - 1) * SCENE_S))" >"$tmp/clock$i.txt"
  # A bag (long pale box) crosses the field while the sky gradient moves: seeking shows.
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "gradients=s=${W}x${H}:r=$FPS:d=$SCENE_S:c0=$c0:c1=$c1:speed=0.03:seed=$i" \
    -f lavfi -i "sine=f=$tone:r=48000:d=$SCENE_S" \
    -filter_complex "[0:v]drawbox=x=0:y=ih*0.70:w=iw:h=ih*0.30:color=0x558b2f@0.9:t=fill,\
drawbox=x='mod(t*45+$((i * 60)),iw+260)-260':y=ih*0.58:w=260:h=54:color=0xf5f5f5@0.95:t=fill,\
drawbox=x='mod(t*45+$((i * 60)),iw+260)-260':y=ih*0.58+22:w=260:h=6:color=0x2e7d32@0.9:t=fill,\
drawbox=x=0:y=0:w=iw:h=48:color=black@0.45:t=fill,\
drawtext=fontfile=$FONT_BOLD:textfile=$tmp/scene$i.txt:fontsize=24:fontcolor=white:x=16:y=12,\
drawtext=fontfile=$FONT:textfile=$tmp/clock$i.txt:fontsize=20:fontcolor=white:x=w-text_w-14:y=h-text_h-12:box=1:boxcolor=black@0.5:boxborderw=6,\
fade=t=in:d=0.4[v];[1:a]volume=0.06,afade=t=in:d=0.5,afade=t=out:st=$((SCENE_S - 1)):d=1[a]" \
    -map "[v]" -map "[a]" -c:v libx264 -crf 12 -preset veryfast -c:a pcm_s16le "$tmp/seg$i.mkv"
  i=$((i + 1))
done

: >"$tmp/list.txt"
for n in $(seq 0 $((i - 1))); do echo "file '$tmp/seg$n.mkv'" >>"$tmp/list.txt"; done

echo "Encoding media/sample.mp4…"
# faststart puts the index (moov) first: playback starts without downloading the whole file.
ffmpeg -hide_banner -loglevel error -y -f concat -safe 0 -i "$tmp/list.txt" \
  -c:v libx264 -profile:v main -pix_fmt yuv420p -preset slow -crf 30 -maxrate 220k -bufsize 440k \
  -g $((FPS * 2)) -bf 0 -c:a aac -b:a 40k -ac 1 -ar 22050 -movflags +faststart \
  -metadata title="Muestra — Capacitación: manejo de silo bolsa (edición 2023)" \
  -metadata language=spa "$OUT_DIR/sample.mp4"

echo "Poster…"
ffmpeg -hide_banner -loglevel error -y -ss 3 -i "$OUT_DIR/sample.mp4" -frames:v 1 -q:v 5 \
  "$OUT_DIR/poster.jpg"

echo "Captions…"
total=$((TITLE_S + (i - 1) * SCENE_S))
ts() { printf '00:%02d:%02d.%03d' $(($1 / 60)) $(($1 % 60)) "${2:-0}"; }
{
  echo "WEBVTT"
  echo "Kind: captions"
  echo "Language: es"
  echo
  echo "NOTE Subtítulos de muestra; reemplácelos junto con el video (CAPTIONS_FILE)."
  echo
  cue() { echo "$1"; echo "$(ts "$2") --> $(ts "$3")"; echo "$4"; echo; }
  cue titulo 0 $TITLE_S "Muestra de la capacitación: manejo de silo bolsa, edición 2023."
  captions=(
    "Elegimos un terreno firme, alto y sin pendiente.|Retiramos rastrojos, piedras y objetos punzantes."
    "La embolsadora se alinea con la bolsa bien plegada.|Revisamos el freno y la presión antes de empezar."
    "El grano entra seco y limpio, sin pasar la humedad indicada.|Mantenemos el estiramiento recomendado por el fabricante."
    "Cerramos el extremo sin dejar aire adentro.|Rotulamos fecha, grano y humedad con marcador indeleble."
    "Recorremos la bolsa cada semana y reparamos roturas.|Extraemos desde el extremo opuesto al cierre."
  )
  n=1
  for pair in "${captions[@]}"; do
    IFS='|' read -r first second <<<"$pair"
    start=$((TITLE_S + (n - 1) * SCENE_S))
    half=$((start + SCENE_S / 2))
    cue "escena-$n-a" "$start" "$half" "$first"
    cue "escena-$n-b" "$half" "$((start + SCENE_S))" "$second"
    n=$((n + 1))
  done
} >"$OUT_DIR/sample.es.vtt"

echo "Chapters…"
# One chapter a scene, written as an operator would (MM:SS Title), then checked and turned into
# a WebVTT chapters track by the same code as prepare-video's (machines/chapters.ts).
{
  n=1
  for scene in "${scenes[@]}"; do
    IFS='|' read -r name _ <<<"$scene"
    start=$((TITLE_S + (n - 1) * SCENE_S))
    printf '%02d:%02d %s\n' $((start / 60)) $((start % 60)) "${name#*. }"
    n=$((n + 1))
  done
} >"$tmp/chapters.txt"
npx tsx scripts/ops/chapters.ts "$tmp/chapters.txt" --duration "$total" >"$OUT_DIR/sample.chapters.vtt"

ls -l "$OUT_DIR/sample.mp4" "$OUT_DIR/poster.jpg" "$OUT_DIR/sample.es.vtt" "$OUT_DIR/sample.chapters.vtt"
echo "Duration: ${total} s"
