; Quire installer for Windows (NSIS 3, Modern UI 2).
; Per-user by default: no administrator rights, installs to %LOCALAPPDATA%\Programs\Quire,
; a Start-menu shortcut (desktop shortcut optional) and an "Apps & features" entry whose
; uninstaller keeps the user's data (%LOCALAPPDATA%\Quire: index, settings, conversations)
; unless asked. Installing again over an existing install upgrades it in place.
;
;   makensis /DVERSION=0.1.0 /DPAYLOAD=..\..\build\package\dist\quire /DOUTFILE=Quire-setup.exe quire.nsi
; PAYLOAD is the PyInstaller onedir (Quire.exe, quire-cli.exe, _internal\).

Unicode true
SetCompressor /SOLID lzma
RequestExecutionLevel user
ManifestDPIAware true

!ifndef VERSION
  !error "pass /DVERSION=x.y.z"
!endif
!ifndef PAYLOAD
  !error "pass /DPAYLOAD=path\to\dist\quire"
!endif
!ifndef OUTFILE
  !define OUTFILE "Quire-${VERSION}-setup.exe"
!endif

!define APP_NAME "Quire"
!define PUBLISHER "The Quire developers"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Quire"
!define DATA_DIR "$LOCALAPPDATA\Quire"

Name "${APP_NAME}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\Quire"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${APP_NAME}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "FileDescription" "${APP_NAME} installer"
VIAddVersionKey "LegalCopyright" "MIT licence"

!include "MUI2.nsh"
!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\Quire.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start Quire"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "Quire (required)" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; Upgrade in place: the old program files go, the user's data folder is elsewhere and stays.
  RMDir /r "$INSTDIR\_internal"
  File /r "${PAYLOAD}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall Quire.exe"
  CreateShortcut "$SMPROGRAMS\Quire.lnk" "$INSTDIR\Quire.exe" "" "$INSTDIR\Quire.exe" 0
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP_NAME}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\Quire.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\Uninstall Quire.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall Quire.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  SectionGetSize ${SecApp} $0
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" $0
SectionEnd

Section /o "Desktop shortcut" SecDesktop
  CreateShortcut "$DESKTOP\Quire.lnk" "$INSTDIR\Quire.exe" "" "$INSTDIR\Quire.exe" 0
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} "The Quire app, its models and a Start-menu shortcut."
  !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} "A shortcut to Quire on the desktop."
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Section "un.Quire" UnSecApp
  SectionIn RO
  Delete "$SMPROGRAMS\Quire.lnk"
  Delete "$DESKTOP\Quire.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\Quire.exe"
  Delete "$INSTDIR\quire-cli.exe"
  Delete "$INSTDIR\Uninstall Quire.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd

; Off by default: the notes index, settings and conversations stay for a later install.
; The notes themselves live in the user's own folders and are never touched.
Section /o "un.My Quire data (index, settings, conversations)" UnSecData
  RMDir /r "${DATA_DIR}"
SectionEnd

!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecApp} "Remove the Quire program."
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecData} "Also delete ${DATA_DIR}. Your notes are not touched."
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END
