; Domain Desk's Windows installer: per user, no administrator rights, built on Linux with
; Debian's makensis (`cargo xtask windows` builds and tests it under Wine).
;
; Our own script rather than the Tauri bundler's NSIS target: the bundler downloads its
; plugin DLL (nsis_tauri_utils) from GitHub when it runs, which a build machine without that
; access cannot do; this script needs only the plugins that come with NSIS.
;
; makensis -DVERSION=0.1.0 -DSOURCE=<folder with domain-desk.exe> -DOUTFILE=<setup.exe>
;          [-DWEBVIEW2_LOADER] [-DWEBVIEW2_BOOTSTRAPPER=<MicrosoftEdgeWebview2Setup.exe>]
;          [-DCOMPRESSOR=zlib] installer.nsi
; WEBVIEW2_LOADER: SOURCE also has WebView2Loader.dll, which a MinGW (x86_64-pc-windows-gnu)
; build loads at start and cannot run without; an MSVC build links it in.
; COMPRESSOR: lzma (solid) for releases; CI's test builds pass zlib, several times faster.
;
; Switches: /S silent; /P passive (progress only; what the updater passes); /R start the app
; when done (the updater's "Install and restart"); /D=<folder> where to install.
; Uninstaller: /S silent; /DELETEDATA also removes settings, logs and the demo's data.

Unicode true
; A 64-bit installer: the program is 64-bit, and Wine without its 32-bit half (Debian's wine64)
; runs it too.
Target amd64-unicode
ManifestDPIAware true
!ifdef COMPRESSOR
  SetCompressor ${COMPRESSOR}
!else
  SetCompressor /SOLID lzma
!endif
RequestExecutionLevel user

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"

!ifndef VERSION
  !error "pass -DVERSION=x.y.z"
!endif
!ifndef SOURCE
  !error "pass -DSOURCE=<folder with domain-desk.exe>"
!endif
!ifndef OUTFILE
  !define OUTFILE "Domain-Desk_${VERSION}_x64-setup.exe"
!endif

!define PRODUCT "Domain Desk"
!define EXE "domain-desk.exe"
!define IDENTIFIER "dev.domaindesk.app"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${IDENTIFIER}"
!define SCHEME "domain-desk"
; The WebView2 runtime's client id (Microsoft's "Distribute your app and the WebView2 Runtime").
!define WEBVIEW2_GUID "{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
; Microsoft's permanent link to the evergreen bootstrapper.
!define WEBVIEW2_URL "https://go.microsoft.com/fwlink/p/?LinkId=2124703"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${PRODUCT} installer"
VIAddVersionKey "LegalCopyright" "Domain Desk contributors"

!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
; Passive (/P) shows the progress only.
!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipWhenPassive
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_PAGE_CUSTOMFUNCTION_PRE SkipWhenPassive
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Var Passive

Function .onInit
  SetShellVarContext current
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/P" $1
  ${IfNot} ${Errors}
    StrCpy $Passive 1
    SetAutoClose true
  ${EndIf}
FunctionEnd

Function SkipWhenPassive
  ${If} $Passive == 1
    Abort
  ${EndIf}
FunctionEnd

; The app must not run while its files are replaced (an update from inside the app exits it
; first). Asked politely through the single-instance window; files in use fail the copy.
Section "Domain Desk" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${SOURCE}\${EXE}"
!ifdef WEBVIEW2_LOADER
  File "${SOURCE}\WebView2Loader.dll"
!endif
  WriteUninstaller "$INSTDIR\uninstall.exe"

  ; Start menu entry for this user.
  CreateShortcut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\${EXE}"

  ; domain-desk:// links open the app (it hands them to the running window).
  WriteRegStr HKCU "Software\Classes\${SCHEME}" "" "URL:${PRODUCT} link"
  WriteRegStr HKCU "Software\Classes\${SCHEME}" "URL Protocol" ""
  WriteRegStr HKCU "Software\Classes\${SCHEME}\DefaultIcon" "" "$INSTDIR\${EXE},0"
  WriteRegStr HKCU "Software\Classes\${SCHEME}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'

  ; Apps & features, for this user.
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "Domain Desk"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" $0

  Call EnsureWebView2

  ; /R: the updater's "Install and restart".
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/R" $1
  ${IfNot} ${Errors}
    Exec '"$INSTDIR\${EXE}"'
  ${EndIf}
SectionEnd

; The window is drawn by the WebView2 runtime, which Windows 11 and current Windows 10 carry.
; As Tauri recommends, the evergreen bootstrapper installs it where it is missing: the one
; shipped beside this installer when the build had it, otherwise fetched from Microsoft at
; install time (PowerShell, present on every supported Windows). The runtime then updates
; itself.
Function EnsureWebView2
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${If} $0 == ""
    ReadRegStr $0 HKLM "SOFTWARE\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  ${If} $0 == ""
    ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_GUID}" "pv"
  ${EndIf}
  ${If} $0 != ""
  ${AndIf} $0 != "0.0.0.0"
    DetailPrint "WebView2 runtime $0 is installed."
    Return
  ${EndIf}
  StrCpy $1 "$TEMP\MicrosoftEdgeWebview2Setup.exe"
!ifdef WEBVIEW2_BOOTSTRAPPER
  File "/oname=$1" "${WEBVIEW2_BOOTSTRAPPER}"
!else
  DetailPrint "Downloading the WebView2 runtime's installer from Microsoft…"
  nsExec::ExecToLog 'powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "Invoke-WebRequest -UseBasicParsing -Uri ''${WEBVIEW2_URL}'' -OutFile ''$1''"'
  Pop $2
!endif
  ${IfNot} ${FileExists} "$1"
    DetailPrint "The WebView2 runtime is missing and its installer could not be fetched; Domain Desk's window needs it (its command line does not)."
    Return
  ${EndIf}
  DetailPrint "Installing the WebView2 runtime…"
  ExecWait '"$1" /silent /install' $2
  DetailPrint "WebView2 installer exit code: $2"
  Delete "$1"
FunctionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

Section "Uninstall"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  DeleteRegKey HKCU "Software\Classes\${SCHEME}"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"

  ; The user's data (settings, the accounts list, logs, the offline demo) stays unless asked:
  ; /DELETEDATA, or Yes to the question when the uninstaller has a window. API keys are in
  ; Windows' Credential Manager and stay there either way.
  StrCpy $0 0
  ${GetParameters} $1
  ClearErrors
  ${GetOptions} $1 "/DELETEDATA" $2
  ${IfNot} ${Errors}
    StrCpy $0 1
  ${ElseIfNot} ${Silent}
    MessageBox MB_YESNO|MB_DEFBUTTON2 "Also delete your Domain Desk settings, logs and offline demo data?" IDNO +2
    StrCpy $0 1
  ${EndIf}
  ${If} $0 == 1
    RMDir /r "$APPDATA\${IDENTIFIER}"
    RMDir /r "$LOCALAPPDATA\${IDENTIFIER}"
  ${EndIf}
SectionEnd
